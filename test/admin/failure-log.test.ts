// An admin API request that fails on our side (500) is logged with its
// route's pattern, never the concrete path, which names a record: a
// student's id, a device's, a phone number (docs/operating.md#logs). The
// same for a wrong bearer token's warning.
import request from 'supertest';
import { ADMIN_TOKEN, startOperatedService, type OperatedService } from '../support/operated-service';
import { storeVariants } from '../support/stores';

const BASE = '/admin/api/v1';
const STUDENT = '1001';
const DEVICE = 'dev-1001';

describe.each(storeVariants())('admin API log lines on $name', (variant) => {
  let service: OperatedService;
  beforeAll(async () => {
    service = await startOperatedService(variant);
  });
  afterAll(() => service.stop());
  afterEach(() => jest.restoreAllMocks());

  /** The lines a request wrote, but for its access line (docs/operating.md#logs, which logs the path). */
  async function linesOf(send: () => Promise<request.Response>): Promise<Record<string, unknown>[]> {
    const seen = service.logs.length;
    await send();
    return service.logs.slice(seen).filter((line) => line.msg !== 'request');
  }

  it.each([
    ['a student', `/students/${STUDENT}`, '/students/:id', STUDENT],
    ['a device', `/devices/${DEVICE}`, '/devices/:id', DEVICE],
  ])('logs a failed read of %s with the route, not its id', async (_l, path, pattern, id) => {
    jest.spyOn(service.store.admin, 'getRecord').mockRejectedValue(new Error('the disk went away'));
    const lines = await linesOf(async () => {
      const res = await request(service.app).get(`${BASE}${path}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
      expect(res.status).toBe(500);
      expect(res.body.error.code).toBe('internal');
      return res;
    });
    const failed = lines.filter((line) => line.msg === 'admin API: request failed');
    expect(failed).toEqual([expect.objectContaining({ method: 'GET', route: `${BASE}${pattern}` })]);
    expect(failed[0]).not.toHaveProperty('path');
    expect(JSON.stringify(lines)).not.toContain(id);
  });

  it('logs a wrong token with the route, not the id', async () => {
    const lines = await linesOf(() =>
      request(service.app).delete(`${BASE}/devices/${DEVICE}`).set('Authorization', `Bearer ${ADMIN_TOKEN}x`),
    );
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'admin API: wrong bearer token', route: `${BASE}/devices/:id` }),
    ]);
    expect(JSON.stringify(lines)).not.toContain(DEVICE);
  });

  it('names no route for a path that has none', async () => {
    const lines = await linesOf(() =>
      request(service.app).get(`${BASE}/nothing/${STUDENT}`).set('Authorization', `Bearer ${ADMIN_TOKEN}x`),
    );
    expect(lines).toEqual([expect.objectContaining({ route: `${BASE}/*` })]);
    expect(JSON.stringify(lines)).not.toContain(STUDENT);
  });
});
