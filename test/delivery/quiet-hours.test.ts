// Quiet hours and scheduling (docs/delivery.md#quiet-hours): a school's
// non-urgent notifications queued during its quiet hours are held in the
// outbox until they end, in the school's zone and across daylight-saving
// changes, on the injected clock; the admin API queues a notification for
// later, shows "held until", sets a school's clock (PATCH /schools), and
// cancels a message until a worker claims it.
import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { createAdminApi } from '../../src/admin';
import type { QueueDeps } from '../../src/operations/queue-notification';
import { notificationQueue, queueNotification } from '../../src/operations/queue-notification';
import type { PushNotificationRow } from '../../src/store';
import { storeVariants } from '../support/stores';
import { SCHOOL, startHarness, type Harness } from './support/harness';

const TOKEN = 'admin-token-0123456789';
const BASE = '/admin/api/v1';

describe.each(storeVariants())('quiet hours and scheduling on $name', (variant) => {
  let h: Harness;
  let deps: QueueDeps;

  const start = async (urgent: string[] = []) => {
    h = await startHarness(variant);
    deps = {
      store: { records: h.ctx.store.records, outbox: h.ctx.store.outbox },
      rules: {
        phone: { defaultRegion: 'SY', allowedCountries: ['SY'] },
        now: h.clock.now,
        urgentTypes: new Set(urgent),
      },
    };
  };
  afterEach(() => h.close());

  const school = (fields: Record<string, unknown>) =>
    h.ctx.store.dataSet.writeDataSet({ schools: [{ baseUrl: SCHOOL, name: 'School', ...fields }] });
  const queue = (type = 'note', sendAt?: Date) =>
    queueNotification(deps, { studentId: '1001', school: SCHOOL, type, sendAt });
  const row = async (id: string) =>
    (await h.ctx.store.admin.getOutboxMessage('push', id))?.item as PushNotificationRow | undefined;
  const admin = () => {
    const app = express().use(
      createAdminApi({
        store: h.ctx.store.admin,
        token: TOKEN,
        logger: pino({ level: 'silent' }),
        queueNotification: notificationQueue(deps),
        now: h.clock.now,
      }),
    );
    const auth = (test: request.Test) => test.set('Authorization', `Bearer ${TOKEN}`);
    return {
      get: (path: string) => auth(request(app).get(`${BASE}${path}`)),
      post: (path: string, body: object) => auth(request(app).post(`${BASE}${path}`)).send(body),
      patch: (path: string, body: object) => auth(request(app).patch(`${BASE}${path}`)).send(body),
      delete: (path: string) => auth(request(app).delete(`${BASE}${path}`)),
    };
  };

  it('holds a notification queued during quiet hours until they end, then sends it', async () => {
    await start();
    // 2030-01-01T00:00Z is 03:00 in Riyadh: inside 22:00-06:30, which ends at 03:30Z.
    await school({ timeZone: 'Asia/Riyadh', quietHours: '22:00-06:30' });
    const queued = await queue('note');
    expect(queued.heldUntil).toBe('2030-01-01T03:30:00.000Z');
    expect(await row(queued.id)).toMatchObject({
      nextAttemptAt: '2030-01-01T03:30:00.000Z',
      heldUntil: queued.heldUntil,
    });
    // Its lifetime counts from the end of quiet hours: a week for a note.
    expect((await row(queued.id))?.options?.expiresAt).toBe('2030-01-08T03:30:00.000Z');
    expect(await h.worker.runOnce()).toBe(0);
    h.clock.set('2030-01-01T03:29:59.000Z');
    expect(await h.worker.runOnce()).toBe(0);
    h.clock.set('2030-01-01T03:30:00.000Z');
    expect(await h.worker.runOnce()).toBe(1);
    expect(h.fcm.server.requests).toHaveLength(1);
    expect(await row(queued.id)).toMatchObject({ status: 'sent', heldUntil: null });
  });

  it('sends at once outside quiet hours, and urgent types at once inside them', async () => {
    await start(['absence']);
    await school({ timeZone: 'Asia/Riyadh', quietHours: '22:00-06:30' });
    const urgent = await queue('Absence');
    expect(urgent).toMatchObject({ heldUntil: null, dueAt: '2030-01-01T00:00:00.000Z' });
    await school({ quietHours: '12:00-13:00' });
    expect((await queue('note')).heldUntil).toBeNull();
    expect(await h.worker.runOnce()).toBe(2);
  });

  it('holds until 07:00 local on the nights the clocks change in London', async () => {
    await start();
    await school({ timeZone: 'Europe/London', quietHours: '21:00-07:00' });
    // End of March: 23:30 GMT on 28 March; quiet hours end at 07:00 BST = 06:00Z.
    h.clock.set('2030-03-30T23:30:00.000Z');
    expect((await queue()).heldUntil).toBe('2030-03-31T06:00:00.000Z');
    // End of October: 23:30 BST on 26 October; they end at 07:00 GMT = 07:00Z.
    h.clock.set('2030-10-26T22:30:00.000Z');
    expect((await queue()).heldUntil).toBe('2030-10-27T07:00:00.000Z');
  });

  it('ends quiet hours at the jump when their end is a time the clocks skip', async () => {
    await start();
    // New York, 10 March 2030: 02:00 EST becomes 03:00 EDT, so 02:30 never happens.
    await school({ timeZone: 'America/New_York', quietHours: '22:00-02:30' });
    h.clock.set('2030-03-10T05:00:00.000Z');
    const queued = await queue();
    expect(queued.heldUntil).toBe('2030-03-10T07:00:00.000Z');
    h.clock.set('2030-03-10T07:00:00.000Z');
    expect(await h.worker.runOnce()).toBe(1);
  });

  it('queues for a later time through the admin API, held further by quiet hours, and lists it as held', async () => {
    await start();
    await school({ timeZone: 'UTC', quietHours: '20:00-06:00' });
    const api = admin();
    const later = await api.post('/notifications', { studentId: '1001', type: 'exam', sendAt: '2030-01-01T12:00:00Z' });
    expect(later.status).toBe(202);
    expect(later.body).toEqual({ id: expect.any(String), dueAt: '2030-01-01T12:00:00.000Z', heldUntil: null });
    expect(later.headers.location).toBe(`${BASE}/outbox/push/${later.body.id as string}`);
    // Due in the evening: quiet hours hold it until the morning.
    const evening = await api.post('/notifications', {
      studentId: '1001',
      type: 'exam',
      sendAt: '2030-01-01T21:00:00+00:00',
    });
    expect(evening.body).toMatchObject({ dueAt: '2030-01-02T06:00:00.000Z', heldUntil: '2030-01-02T06:00:00.000Z' });
    const listed = await api.get('/outbox/push');
    expect(listed.body.items.map((item: { heldUntil: string | null }) => item.heldUntil).sort()).toEqual([
      '2030-01-01T12:00:00.000Z',
      '2030-01-02T06:00:00.000Z',
    ]);
    expect(await h.worker.runOnce()).toBe(0);
  });

  it('refuses a notification the admin API cannot queue, with the reason', async () => {
    await start();
    const api = admin();
    expect((await api.post('/notifications', { studentId: 'nobody', type: 'note' })).body.error.code).toBe(
      'student_unknown',
    );
    const far = await api.post('/notifications', { studentId: '1001', type: 'note', sendAt: '2032-01-01T00:00:00Z' });
    expect([far.status, far.body.error.code]).toEqual([422, 'too_far_ahead']);
    const zoneless = await api.post('/notifications', { studentId: '1001', type: 'note', sendAt: '2030-01-01 12:00' });
    expect(zoneless.status).toBe(400);
    expect((await api.post('/notifications', { studentId: '1001', type: 'note', extra: 1 })).status).toBe(400);
  });

  it('cancels a held message until a worker claims it, and refuses once claimed', async () => {
    await start();
    const api = admin();
    const held = await api.post('/notifications', { studentId: '1001', type: 'note', sendAt: '2030-01-01T01:00:00Z' });
    expect((await api.delete(`/notifications/${held.body.id as string}`)).status).toBe(204);
    expect(await row(held.body.id as string)).toBeUndefined();
    expect((await api.delete(`/notifications/${held.body.id as string}`)).status).toBe(404);

    const due = await api.post('/notifications', { studentId: '1001', type: 'note' });
    // A worker claims it; the provider never answers, so it stays claimed.
    h.fcm.server.script('hang');
    const sending = h.worker.runOnce();
    await new Promise<void>((resolve) => h.fcm.server.onRequest(() => resolve()));
    const refused = await api.delete(`/notifications/${due.body.id as string}`);
    expect([refused.status, refused.body.error.code]).toEqual([409, 'claimed']);
    await sending;
    expect(await row(due.body.id as string)).toBeDefined();
  });

  it("sets a school's clock through PATCH /schools, strictly checked", async () => {
    await start();
    const api = admin();
    const path = `/schools/${encodeURIComponent(SCHOOL)}`;
    const set = await api.patch(path, {
      timeZone: 'Europe/London',
      quietHours: '21:30-06:45',
      pushOptions: { Absence: { android: { channelId: 'absence' } } },
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      timeZone: 'Europe/London',
      quietHours: '21:30-06:45',
      pushOptions: { absence: { android: { channelId: 'absence' } } },
    });
    for (const [body, field] of [
      [{ timeZone: 'Europe/Londres' }, 'timeZone'],
      [{ quietHours: '21:30-25:00' }, 'quietHours'],
      [{ quietHours: '06:00-06:00' }, 'quietHours'],
      [{ pushOptions: { absence: { android: { priority: 'urgent' } } } }, 'pushOptions'],
      [{ pushOptions: { absence: { android: { channel_id: 'x' } } } }, 'pushOptions'],
      [{ pushOptions: { note: { ttlSeconds: 99_999_999 } } }, 'pushOptions'],
    ] as const) {
      const refused = await api.patch(path, body);
      expect({ field, status: refused.status }).toEqual({ field, status: 400 });
      expect(JSON.stringify(refused.body)).toContain(field);
    }
    // null puts a school back on UTC and takes its quiet hours away.
    expect((await api.patch(path, { timeZone: null, quietHours: null })).body).toMatchObject({
      timeZone: 'UTC',
      quietHours: null,
    });
  });
});
