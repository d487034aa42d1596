// A school's delivery-event subscription through the admin API: set with a
// secret given or made (shown once), read without it, removed; only https://
// receivers unless EVENTS_ALLOW_HTTP.
import request from 'supertest';
import { ADMIN_TOKEN, startOperatedService, type OperatedService } from '../support/operated-service';
import { storeVariants } from '../support/stores';

const BASE = '/admin/api/v1';
const SCHOOL = 'https://school-a.example';
const PATH = `/schools/${encodeURIComponent(SCHOOL)}/events`;
const GIVEN = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

describe.each(storeVariants())('event subscription routes on $name', (variant) => {
  let service: OperatedService;
  afterEach(() => service.stop());
  const start = async (env: Record<string, string> = {}) => {
    service = await startOperatedService(variant, env);
  };
  const auth = (test: request.Test) => test.set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  const put = (body: unknown, path = PATH) => auth(request(service.app).put(`${BASE}${path}`)).send(body as object);
  const get = (path = PATH) => auth(request(service.app).get(`${BASE}${path}`));
  const del = (path = PATH) => auth(request(service.app).delete(`${BASE}${path}`));

  it('makes a secret when none is given, returns it once, and never shows it again', async () => {
    await start();
    const set = await put({ url: 'https://hooks.school-a.example/events' });
    expect(set.status).toBe(200);
    const secret = set.body.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);
    expect(set.body).toMatchObject({
      baseUrl: SCHOOL,
      url: 'https://hooks.school-a.example/events',
      state: 'active',
      pending: 0,
      failed: 0,
    });

    const read = await get();
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      baseUrl: SCHOOL,
      url: 'https://hooks.school-a.example/events',
      state: 'active',
      failingSince: null,
      lastError: null,
      pending: 0,
      failed: 0,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(JSON.stringify(read.body)).not.toContain(secret.slice(6));
    expect(JSON.stringify(service.logs)).not.toContain(secret.slice(6));
    // Another school spelling finds the same school; a second PUT makes another secret.
    const again = await put(
      { url: 'https://hooks.school-a.example/v2' },
      `/schools/${encodeURIComponent('HTTPS://School-A.example/')}/events`,
    );
    expect(again.status).toBe(200);
    expect(again.body.secret).not.toBe(secret);
  });

  it("keeps a given secret without echoing it, and counts the school's pending events", async () => {
    await start();
    const set = await put({ url: 'https://hooks.school-a.example/events', secret: GIVEN });
    expect(set.status).toBe(200);
    expect(set.body).not.toHaveProperty('secret');
    await service.store.outbox.enqueuePushNotification({
      deviceId: 'dev-1001',
      studentId: '1001',
      type: 'absence',
      title: 't',
      body: 'b',
      data: {},
    });
    expect((await get()).body).toMatchObject({ pending: 1, failed: 0 });
  });

  it('refuses http:// without EVENTS_ALLOW_HTTP, and a malformed secret or URL, with a clear error', async () => {
    await start();
    const http = await put({ url: 'http://10.0.0.5/events' });
    expect(http.status).toBe(400);
    expect(http.body.error.message).toContain('EVENTS_ALLOW_HTTP');
    for (const body of [
      { url: 'https://hooks.example/e', secret: 'not-a-secret' },
      { url: 'https://hooks.example/e', secret: `whsec_${Buffer.alloc(8).toString('base64')}` },
      { url: 'ftp://hooks.example/e' },
      { url: 'hooks.example/e' },
      { url: 'https://user:pass@hooks.example/e' },
      { url: 'https://hooks.example/e', extra: 1 },
      {},
    ]) {
      const res = await put(body);
      expect({ body, status: res.status, code: res.body.error?.code }).toEqual({
        body,
        status: 400,
        code: 'invalid_request',
      });
    }
    expect((await get()).status).toBe(404);
  });

  it('accepts http:// with EVENTS_ALLOW_HTTP=true', async () => {
    await start({ EVENTS_ALLOW_HTTP: 'true' });
    expect((await put({ url: 'http://10.0.0.5/events' })).status).toBe(200);
  });

  it('answers 404 for an unknown school or a school without a subscription, and removes one', async () => {
    await start();
    const unknown = `/schools/${encodeURIComponent('https://nowhere.example')}/events`;
    expect((await put({ url: 'https://hooks.example/e' }, unknown)).status).toBe(404);
    expect((await get(unknown)).status).toBe(404);
    expect((await get()).body.error.message).toContain('has no event subscription');
    await put({ url: 'https://hooks.school-a.example/events' });
    expect((await del()).status).toBe(204);
    expect((await get()).status).toBe(404);
    expect((await del()).status).toBe(404);
  });
});
