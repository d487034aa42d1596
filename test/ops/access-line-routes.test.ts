// The access line of a request to the admin API or the console names its
// route by pattern (`/admin/api/v1/students/:id`), never by the concrete
// path, whose segments are record ids: a student's, a device's, a phone
// number (docs/operating.md#logs). The operations' paths are written as they are.
import request from 'supertest';
import { ADMIN_TOKEN, startOperatedService, type OperatedService } from '../support/operated-service';
import { storeVariants } from '../support/stores';
import { addAccount, signedIn } from '../console/support';

const STUDENT = '1001';
const PHONE = '0944123456';

describe.each(storeVariants())('access lines of routes that name records, on $name', (variant) => {
  let service: OperatedService;
  beforeAll(async () => {
    service = await startOperatedService(variant);
    await addAccount(service.testStore.store, 'ops', 'operator');
  });
  afterAll(() => service.stop());

  /** The access lines (`msg` "request") the requests `send` makes wrote; no path of them may name a record. */
  async function accessLines(send: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
    const seen = service.logs.length;
    await send();
    // The line is written when the answer has been handed over, which supertest can see first.
    await new Promise((resolve) => setImmediate(resolve));
    const lines = service.logs.slice(seen).filter((line) => line.msg === 'request');
    // The paths: a request id or a time could hold those digits by chance.
    const paths = lines.map((line) => String(line.path)).join(' ');
    expect(paths).not.toContain(STUDENT);
    expect(paths).not.toContain(PHONE);
    return lines;
  }

  const admin = (path: string, token = ADMIN_TOKEN) =>
    request(service.app).get(`/admin/api/v1${path}`).set('Authorization', `Bearer ${token}`);

  it.each([
    ['a record read', `/students/${STUDENT}`, ADMIN_TOKEN, 200, '/admin/api/v1/students/:id'],
    ['a wrong token', `/students/${STUDENT}`, 'wrong-token', 401, '/admin/api/v1/students/:id'],
    ['a path no route has', `/nothing/${PHONE}`, ADMIN_TOKEN, 404, '/admin/api/v1/*'],
    ['the description', '/openapi.json', ADMIN_TOKEN, 200, '/admin/api/v1/openapi.json'],
  ])('names the admin API route of %s', async (_label, path, token, status, route) => {
    const lines = await accessLines(async () => expect((await admin(path, token)).status).toBe(status));
    expect(lines).toEqual([expect.objectContaining({ path: route, status, endpoint: 'admin' })]);
  });

  it('writes the path of a request no route took as it came, for the operator to see what callers ask for', async () => {
    const lines = await accessLines(() => request(service.app).get('/admin/setup.php'));
    expect(lines).toEqual([expect.objectContaining({ path: '/admin/setup.php', status: 404 })]);
  });

  it('names the console route of a page, signed in or not', async () => {
    const browser = await signedIn(service.app, 'ops');
    const lines = await accessLines(async () => {
      expect((await browser.agent.get(`/console/students/${STUDENT}`)).status).toBe(200);
      expect((await browser.agent.get(`/console/students/${STUDENT}/edit`)).status).toBe(200);
      expect((await request(service.app).get(`/console/students/${STUDENT}`)).status).toBe(303);
      expect((await browser.agent.get(`/console/no-such-page/${PHONE}`)).status).toBe(404);
      expect((await browser.agent.get('/console/')).status).toBe(200);
    });
    expect(lines.map((line) => line.path)).toEqual([
      '/console/students/:id',
      '/console/students/:id/edit',
      '/console/students/:id',
      '/console/*',
      '/console',
    ]);
  });

  it('writes an operation call path as it is', async () => {
    const path = '/PushNotificationMobile.asmx/GetTokenDevice';
    const lines = await accessLines(() => request(service.app).get(`${path}?studentId=${STUDENT}`));
    expect(lines).toEqual([expect.objectContaining({ path, operation: 'GetTokenDevice' })]);
  });
});
