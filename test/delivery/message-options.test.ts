// Message options per type and school (src/domain/message-options.ts), placed
// by the FCM provider where the FCM HTTP v1 message shape puts them; the fake
// FCM refuses a misplaced field as FCM does (support/fcm-message-shape.ts).
import { DEFAULT_TEMPLATES, resolveOptions, type ResolvedOptions } from '../../src/domain';
import { createWebhookProvider } from '../../src/delivery/push/webhook-provider';
import type { QueueDeps } from '../../src/operations/queue-notification';
import { queueNotification } from '../../src/operations/queue-notification';
import { storeVariants } from '../support/stores';
import { SEND_PATH } from './support/fake-fcm';
import { messageShapeProblem } from './support/fcm-message-shape';
import { FakeHttpServer } from './support/fake-http-server';
import { queuePush, SCHOOL, startHarness, type Harness } from './support/harness';

const T0 = '2030-01-01T00:00:00.000Z';
const at = (iso: string) => new Date(iso);

describe('resolving the options of a message', () => {
  it('gives each built-in type its defaults: an absence is urgent and ends with the school day', () => {
    // 03:00 in Riyadh (UTC+3): the school day ends at 21:00 UTC.
    expect(resolveOptions('Absence', at(T0), 'Asia/Riyadh', {})).toEqual({
      expiresAt: '2030-01-01T21:00:00.000Z',
      android: { priority: 'high' },
      apns: { priority: 10, sound: 'default' },
      webpush: { urgency: 'high' },
    });
    expect(resolveOptions('note', at(T0), 'UTC', {})).toEqual({
      expiresAt: '2030-01-08T00:00:00.000Z',
      android: { priority: 'normal' },
      apns: { priority: 5 },
      webpush: { urgency: 'normal' },
    });
    // A type of its own: the `*` defaults.
    expect(resolveOptions('trip', at(T0), 'UTC', {}).android).toEqual({ priority: 'normal' });
  });

  it('lays the templates file over the defaults, and the school over both, field by field; null takes a field away', () => {
    const options = resolveOptions('absence', at(T0), 'UTC', {
      templates: {
        ...DEFAULT_TEMPLATES,
        absence: { ...DEFAULT_TEMPLATES.absence, options: { android: { channelId: 'absence' }, apns: { badge: 1 } } },
      },
      school: { absence: { apns: { sound: null, collapseId: 'absence' }, ttlSeconds: 3600 } },
    });
    expect(options).toEqual({
      // The earlier of the two ends: an hour, before midnight.
      expiresAt: '2030-01-01T01:00:00.000Z',
      android: { priority: 'high', channelId: 'absence' },
      apns: { priority: 10, badge: 1, collapseId: 'absence' },
      webpush: { urgency: 'high' },
    });
  });

  it("takes a school's `*` for a type it does not name", () => {
    expect(resolveOptions('exam', at(T0), 'UTC', { school: { '*': { webpush: { urgency: 'low' } } } }).webpush).toEqual(
      { urgency: 'low' },
    );
  });

  it('merges a type once per templates and school, and a school whose options change gets the new ones', () => {
    const templates = DEFAULT_TEMPLATES;
    const before = { absence: { android: { channelId: 'old' } } };
    const first = resolveOptions('absence', at(T0), 'UTC', { templates, school: before });
    // The lifetime is counted from each message's own due time; the platforms are the kept ones.
    const later = resolveOptions('Absence ', at('2030-01-02T10:00:00.000Z'), 'UTC', { templates, school: before });
    expect(later.expiresAt).toBe('2030-01-03T00:00:00.000Z');
    expect(later.android).toBe(first.android);
    expect(Object.isFrozen(first.android)).toBe(true);
    // An import gives the school a new options object: read afresh.
    const after = resolveOptions('absence', at(T0), 'UTC', {
      templates,
      school: { absence: { android: { channelId: 'new' } } },
    });
    expect(after.android).toEqual({ priority: 'high', channelId: 'new' });
    // Many types (callers' strings): each still resolved as alone, past what is kept.
    for (let i = 0; i < 600; i++)
      expect(resolveOptions(`type-${i}`, at(T0), 'UTC', { templates, school: before }).expiresAt).toBe(
        '2030-01-08T00:00:00.000Z',
      );
    expect(resolveOptions('absence', at(T0), 'UTC', { templates, school: before })).toEqual(first);
  });
});

describe('the fake FCM refuses what FCM refuses', () => {
  it.each([
    ['a channel id on android', { android: { channel_id: 'x' } }, /Unknown name "channel_id" at 'message.android'/],
    ['a ttl as a number', { android: { ttl: 3600 } }, /Illegal duration/],
    ['a priority FCM does not know', { android: { priority: 'URGENT' } }, /message.android.priority/],
    ['sound as an APNs header', { apns: { headers: { sound: 1 } } }, /expected a string/],
    ['an urgency word of its own', { webpush: { headers: { Urgency: 'urgent' } } }, /Urgency/],
    ['a collapse key at the top', { collapse_key: 'x' }, /Unknown name "collapse_key" at 'message'/],
  ])('%s', (_, extra, problem) => {
    const body = JSON.stringify({ message: { token: 't', notification: { title: 'a', body: 'b' }, ...extra } });
    expect(messageShapeProblem(body)).toMatch(problem);
  });

  it('takes the v1 shape in either spelling', () => {
    const body = JSON.stringify({
      message: {
        token: 't',
        android: { collapseKey: 'k', ttl: '3600s', priority: 'HIGH', notification: { channelId: 'c' } },
        apns: { headers: { 'apns-priority': '10' }, payload: { aps: { sound: 'default', badge: 2 } } },
        webpush: { headers: { Urgency: 'high', TTL: '60' } },
      },
    });
    expect(messageShapeProblem(body)).toBeNull();
  });
});

describe.each(storeVariants())('message options through FCM on $name', (variant) => {
  let h: Harness;
  let deps: QueueDeps;

  beforeEach(async () => {
    h = await startHarness(variant);
    deps = {
      store: { records: h.ctx.store.records, outbox: h.ctx.store.outbox },
      rules: { phone: { defaultRegion: 'SY', allowedCountries: ['SY'] }, now: h.clock.now },
    };
  });
  afterEach(() => h.close());

  const school = (fields: Record<string, unknown>) =>
    h.ctx.store.dataSet.writeDataSet({ schools: [{ baseUrl: SCHOOL, name: 'School', ...fields }] });
  const queue = (type: string) => queueNotification(deps, { studentId: '1001', school: SCHOOL, type });
  const sentMessage = () => (JSON.parse(h.fcm.server.requests.at(-1)?.body ?? '{}') as { message: unknown }).message;

  it('places each option where the v1 message shape says, the lifetime counted down to the send', async () => {
    await school({
      timeZone: 'Asia/Riyadh',
      pushOptions: {
        absence: {
          android: { channelId: 'absence', collapseKey: 'absence' },
          apns: { badge: 1, collapseId: 'absence' },
        },
      },
    });
    const { id } = await queue('absence');
    // Sent an hour after it was queued: 20 hours left of the school day in Riyadh.
    h.clock.set('2030-01-01T01:00:00.000Z');
    expect(await h.worker.runOnce()).toBe(1);
    expect(h.fcm.server.requests.map((r) => r.url)).toEqual([SEND_PATH]);
    const expiration = String(Date.parse('2030-01-01T21:00:00.000Z') / 1000);
    expect(sentMessage()).toEqual({
      token: 'token-1001',
      notification: expect.objectContaining({ title: expect.any(String) }),
      data: expect.objectContaining({ notificationId: id, type: 'absence' }),
      android: {
        priority: 'HIGH',
        ttl: '72000s',
        collapse_key: 'absence',
        notification: { channel_id: 'absence' },
      },
      apns: {
        headers: { 'apns-priority': '10', 'apns-collapse-id': 'absence', 'apns-expiration': expiration },
        payload: { aps: { sound: 'default', badge: 1 } },
      },
      webpush: { headers: { Urgency: 'high', TTL: '72000' } },
    });
    expect((await h.ctx.store.admin.getOutboxMessage('push', id))?.item).toMatchObject({ status: 'sent' });
  });

  it('sends a message queued before there were options as it always was', async () => {
    await queuePush(h);
    expect(await h.worker.runOnce()).toBe(1);
    expect(Object.keys(sentMessage() as object).sort()).toEqual(['data', 'notification', 'token']);
  });

  it('gives up a message whose lifetime ran out before it could be sent, without sending it', async () => {
    await school({ pushOptions: { note: { ttlSeconds: 60 } } });
    const { id } = await queue('note');
    h.clock.set('2030-01-01T00:01:00.000Z');
    expect(await h.worker.runOnce()).toBe(1);
    expect(h.fcm.server.requests).toHaveLength(0);
    const row = (await h.ctx.store.admin.getOutboxMessage('push', id))?.item;
    expect(row).toMatchObject({ status: 'dead' });
    expect(row?.lastError).toMatch(/^expired: The message expired at 2030-01-01T00:01:00.000Z/);
  });
});

describe('message options through the webhook', () => {
  it('travel in our fields, the lifetime left as ttlSeconds', async () => {
    const gateway = await FakeHttpServer.start();
    try {
      const options: ResolvedOptions = {
        expiresAt: '2030-01-01T01:00:00.000Z',
        android: { priority: 'high' },
        apns: { priority: 10, sound: 'default' },
        webpush: { urgency: 'high' },
      };
      const provider = createWebhookProvider({
        url: `${gateway.url}/push`,
        token: null,
        timeoutMs: 2000,
        now: () => Date.parse(T0),
      });
      const result = await provider.send({
        id: 'm1',
        token: 'tok',
        platform: 'ios',
        title: 't',
        body: 'b',
        data: {},
        options,
      });
      expect(result.ok).toBe(true);
      const document = JSON.parse(gateway.requests[0].body) as Record<string, unknown>;
      expect(document.options).toEqual({ ...options, ttlSeconds: 3600 });
    } finally {
      await gateway.close();
    }
  });
});
