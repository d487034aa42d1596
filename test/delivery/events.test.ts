// Delivery events to a school's system: written with the outcomes they
// report, posted by their own worker, signed as Standard Webhooks 1.0 says.
// The receiver here checks each delivery with its own reading of the
// specification (not the service's code), goes down for a while, and must
// end with every event once after dropping repeats by webhook-id, in order
// per message.
import pino from 'pino';
import { parseDeliveryConfig, startDelivery } from '../../src/delivery';
import type { EventWorker } from '../../src/delivery/events/event-worker';
import { createMetrics } from '../../src/metrics';
import { storeVariants } from '../support/stores';
import { Receiver, SECRET } from './support/event-receiver';
import { fcmError } from './support/fake-fcm';
import { eventWorker, pushWorker, queuePush, SCHOOL, startHarness, type Harness } from './support/harness';
import { sent } from '../../src/delivery/provider';

const T0 = '2030-01-01T00:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

describe.each(storeVariants())('delivery events on $name', (variant) => {
  let h: Harness;
  let receiver: Receiver;
  let events: EventWorker;
  const logs: string[] = [];

  beforeEach(async () => {
    h = await startHarness(variant);
    receiver = new Receiver(SECRET);
    receiver.nowSeconds = () => Math.floor(h.clock.now().getTime() / 1000);
    await receiver.start();
    logs.length = 0;
    events = eventWorker(h, { logger: pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) }) });
  });
  afterEach(async () => {
    await events.stop(1000);
    await receiver.close();
    await h.close();
  });

  const subscribe = () => h.ctx.store.admin.putEventSubscription(SCHOOL, { url: receiver.url, secret: SECRET });
  const eventRows = () =>
    h.ctx.query<{ id: string; type: string; status: string; message_id: string; seq: number }>(
      'select id, type, status, message_id, seq from event_outbox order by message_id, seq',
    );
  /** Runs the event worker until nothing is due now, moving the clock to each retry. */
  const drainEvents = async (maxRounds = 50) => {
    for (let round = 0; round < maxRounds; round++) {
      if ((await events.runOnce()) > 0) continue;
      const [next] = await h.ctx.query<{ next_attempt_at: string }>(
        "select min(next_attempt_at) as next_attempt_at from event_outbox where status in ('queued', 'failed') and next_attempt_at > ?",
        [h.clock.now().toISOString()],
      );
      if (next?.next_attempt_at == null) return;
      h.clock.set(next.next_attempt_at);
    }
    throw new Error('events still due after many rounds');
  };

  it('writes nothing for a school without a subscription', async () => {
    await queuePush(h);
    await h.worker.runOnce();
    expect(await eventRows()).toEqual([]);
  });

  it('writes notification.queued in the transaction that queues the push', async () => {
    await subscribe();
    const id = await queuePush(h);
    expect(await eventRows()).toEqual([
      { id: `msg_${id.replaceAll('-', '')}_0`, type: 'notification.queued', status: 'queued', message_id: id, seq: 0 },
    ]);
  });

  it('writes one notification.queued for each push of a commit shared by calls that came together', async () => {
    await subscribe();
    const ids = await Promise.all([queuePush(h, '1001'), queuePush(h, '1002'), queuePush(h, '1003')]);
    expect(new Set(ids).size).toBe(3);
    expect(await eventRows()).toEqual(
      [...ids].sort().map((id) => ({
        id: `msg_${id.replaceAll('-', '')}_0`,
        type: 'notification.queued',
        status: 'queued',
        message_id: id,
        seq: 0,
      })),
    );
  });

  it('a receiver that is down for a while gets every event, signed, once per webhook-id and in order per message', async () => {
    await subscribe();
    // 1001 is sent; 1002 fails once (503) and is sent; 1003's token is gone.
    let failed1002 = false;
    h.fcm.server.route((request) => {
      if (request.url === '/token') return undefined;
      const { token } = (JSON.parse(request.body) as { message: { token: string } }).message;
      if (token === 'token-1002' && !failed1002) {
        failed1002 = true;
        return fcmError(503, 'UNAVAILABLE', 'UNAVAILABLE', 'The service is unavailable.');
      }
      if (token === 'token-1003') return fcmError(404, 'NOT_FOUND', 'UNREGISTERED', 'Requested entity was not found.');
      return undefined;
    });
    const ids = [await queuePush(h, '1001'), await queuePush(h, '1002'), await queuePush(h, '1003')];

    // The receiver is down for its first 5 deliveries, and its 7th is accepted but answered 503 (a repeat follows).
    let calls = 0;
    receiver.answer = () => (++calls <= 5 || calls === 7 ? 503 : 200);
    await events.runOnce();
    await h.worker.runOnce();
    await events.runOnce();
    h.clock.set(at(20_000));
    await h.worker.runOnce();
    await drainEvents();

    expect(receiver.deliveries.length).toBeGreaterThan(8);
    expect(receiver.deliveries.filter((d) => !d.verified)).toEqual([]);
    const accepted = receiver.accepted();
    const byMessage = (id: string) => accepted.filter((e) => e.data.notificationId === id).map((e) => e.type);
    expect(byMessage(ids[0])).toEqual(['notification.queued', 'notification.sent']);
    expect(byMessage(ids[1])).toEqual(['notification.queued', 'notification.retrying', 'notification.sent']);
    expect(byMessage(ids[2])).toEqual(['notification.queued', 'notification.dead', 'device.unregistered']);
    expect(accepted).toHaveLength(8);

    // A retry carries the same webhook-id and body, signed with its own timestamp.
    const retried = receiver.deliveries.filter((d) => d.id === receiver.deliveries[0].id);
    expect(retried.length).toBeGreaterThan(1);
    expect(new Set(retried.map((d) => d.body)).size).toBe(1);
    expect(new Set(retried.map((d) => d.timestamp)).size).toBe(retried.length);
    // Retry-After: 30 was honoured (the base wait is 10 s).
    expect(retried[1].timestamp - retried[0].timestamp).toBeGreaterThanOrEqual(30);

    const retrying = accepted.find((e) => e.type === 'notification.retrying')!;
    expect(retrying).toMatchObject({
      timestamp: expect.stringMatching(/^2030-01-01T/),
      data: {
        notificationId: ids[1],
        studentId: '1002',
        school: SCHOOL,
        notificationType: 'absence',
        channel: 'push',
        attempt: 1,
        error: 'UNAVAILABLE: The service is unavailable. (HTTP 503)',
      },
    });
    expect(accepted.find((e) => e.type === 'notification.dead')!.data).toMatchObject({ attempt: 1, studentId: '1003' });
    // No push token reaches the school.
    expect(receiver.deliveries.map((d) => d.body).join('\n')).not.toMatch(/token-100/);
    expect((await eventRows()).map((row) => row.status)).toEqual(Array(8).fill('sent'));
  });

  it('a dead message sent again gets events of its own for its new attempts', async () => {
    await subscribe();
    h.fcm.server.route((request) =>
      request.url === '/token' ? undefined : fcmError(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', 'Bad payload.'),
    );
    const id = await queuePush(h);
    await h.worker.runOnce();
    expect(await h.ctx.store.admin.requeueOutboxMessage('push', id)).toBe('requeued');
    await h.worker.runOnce();
    await drainEvents();
    expect(receiver.accepted().map((e) => [e.type, e.data.attempt])).toEqual([
      ['notification.queued', 0],
      ['notification.dead', 1],
      ['notification.dead', 1],
    ]);
    expect(new Set(receiver.accepted().map((e) => e.id)).size).toBe(3);
  });

  it("never passes the push token on, even when the provider's error quotes it", async () => {
    await subscribe();
    h.fcm.server.route((request) =>
      request.url === '/token'
        ? undefined
        : fcmError(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', 'The registration token token-1001 is not valid.'),
    );
    const id = await queuePush(h);
    await h.worker.runOnce();
    await drainEvents();
    const dead = receiver.accepted().find((e) => e.type === 'notification.dead')!;
    expect(dead.data.error).toBe('INVALID_ARGUMENT: The registration token [token] is not valid. (HTTP 400)');
    expect((await h.ctx.store.admin.getOutboxMessage('push', id))?.item.lastError).not.toContain('token-1001');
  });

  it('holds a later event of a message until its earlier one is delivered', async () => {
    await subscribe();
    receiver.answer = () => 503;
    await queuePush(h);
    await h.worker.runOnce();
    await events.runOnce();
    await events.runOnce();
    expect(receiver.deliveries.map((d) => JSON.parse(d.body).type)).toEqual(['notification.queued']);
  });

  it('keeps at most 4 events of one school in flight', async () => {
    await subscribe();
    for (let i = 0; i < 3; i++) for (const student of ['1001', '1002', '1003']) await queuePush(h, student);
    const first = await h.ctx.store.outbox.claimEvents(16, 4, 60);
    expect(first).toHaveLength(4);
    expect(await h.ctx.store.outbox.claimEvents(16, 4, 60)).toHaveLength(0);
  });

  /**
   * The pushes busy (until the test says not), 12 events due to one school,
   * and an event worker of 16 slots with no bound per school that yields to them.
   */
  const yieldingSetUp = async (busyClaimEveryMs?: number) => {
    await subscribe();
    for (let i = 0; i < 4; i++) for (const student of ['1001', '1002', '1003']) await queuePush(h, student);
    const state = { busy: true };
    const worker = eventWorker(h, {
      perSchool: 16,
      pollMs: 20,
      timeoutMs: 5000,
      pushesBusy: () => state.busy,
      busyClaimEveryMs,
    });
    const until = async (count: number) => {
      const deadline = Date.now() + 5000;
      while (receiver.deliveries.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    };
    return { state, worker, until };
  };

  it.each([
    // The receiver holds every request: the slots hold the events back.
    [
      'keeps to a quarter of its slots while the pushes are busy, and takes them all once they are not',
      undefined,
      true,
    ],
    // The receiver answers at once: only the pace holds the next share back.
    ['claims a share at most each busyClaimEveryMs while the pushes are busy', 60_000, false],
  ])('%s', async (_name, busyClaimEveryMs, hang) => {
    const { state, worker, until } = await yieldingSetUp(busyClaimEveryMs);
    if (hang) receiver.answer = () => 'hang';
    worker.start();
    try {
      await until(4);
      // Several polls later, still only the busy share (4 of 16) of the 12 due events is out.
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.deliveries).toHaveLength(4);
      state.busy = false;
      worker.notify();
      await until(12);
      expect(receiver.deliveries).toHaveLength(12);
    } finally {
      await receiver.close();
      await worker.stop(1000);
    }
  });

  it("the push worker is busy while more pushes are due than it has room for (the event worker's cue to yield)", async () => {
    const held: Array<() => void> = [];
    const worker = pushWorker(
      h.ctx.store.outbox,
      {
        name: 'held',
        retriesUncertain: true,
        send: () => new Promise((resolve) => held.push(() => resolve(sent()))),
      },
      { concurrency: 4 },
    );
    for (let i = 0; i < 3; i++) for (const student of ['1001', '1002']) await queuePush(h, student);
    expect(worker.busy()).toBe(false);
    worker.start();
    try {
      const until = async (condition: () => boolean) => {
        const deadline = Date.now() + 5000;
        while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      };
      await until(() => held.length === 4);
      expect(worker.busy()).toBe(true);
      held.splice(0).forEach((release) => release());
      await until(() => held.length === 2);
      // The last claim found fewer than it had room for: nothing more is due.
      expect(worker.busy()).toBe(false);
      held.splice(0).forEach((release) => release());
    } finally {
      await worker.stop(1000);
    }
  });

  it('marks a receiver failing after an hour of failures, disabled after three days, and stops posting to it', async () => {
    await subscribe();
    receiver.answer = () => 503;
    await queuePush(h);
    await events.runOnce();
    expect(await h.ctx.store.admin.getEventSubscription(SCHOOL)).toMatchObject({
      state: 'active',
      failingSince: T0,
      lastError: 'http_503: the receiver answered 503 Service Unavailable',
      pending: 0,
      failed: 1,
    });
    h.clock.set(at(3_600_000));
    await events.runOnce();
    expect(await h.ctx.store.admin.getEventSubscription(SCHOOL)).toMatchObject({ state: 'failing', failingSince: T0 });
    h.clock.set(at(3 * 86_400_000));
    await events.runOnce();
    expect(await h.ctx.store.admin.getEventSubscription(SCHOOL)).toMatchObject({ state: 'disabled' });
    const posted = receiver.deliveries.length;
    h.clock.set(at(4 * 86_400_000));
    expect(await events.runOnce()).toBe(0);
    expect(receiver.deliveries).toHaveLength(posted);
    // A disabled subscription gets no new events; setting it again resumes the held ones.
    await queuePush(h, '1002');
    expect((await eventRows()).filter((row) => row.status !== 'sent')).toHaveLength(1);
    receiver.answer = () => 200;
    await subscribe();
    expect(await events.runOnce()).toBe(1);
    expect(await h.ctx.store.admin.getEventSubscription(SCHOOL)).toMatchObject({
      state: 'active',
      failingSince: null,
      lastError: null,
    });
  });

  it('a 410 from the receiver disables the subscription at once', async () => {
    await subscribe();
    receiver.answer = () => 410;
    await queuePush(h);
    await events.runOnce();
    expect(await h.ctx.store.admin.getEventSubscription(SCHOOL)).toMatchObject({ state: 'disabled' });
  });

  it('runs beside the push worker when delivery starts, and is counted in the metrics', async () => {
    await subscribe();
    const parsed = parseDeliveryConfig({
      PUSH_PROVIDER: 'log',
      SMS_PROVIDER: 'log',
      DELIVERY_POLL_MS: '20',
      EVENTS_ALLOW_PRIVATE: 'true',
    });
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    const metrics = createMetrics({ outbox: h.ctx.store.outbox, processMetrics: false });
    const running = startDelivery(parsed.config, h.ctx.store.outbox, pino({ level: 'silent' }), {
      eventObserver: metrics.events,
    });
    try {
      const id = await queuePush(h);
      running.events?.notify();
      const deadline = Date.now() + 10_000;
      while (receiver.accepted().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(receiver.accepted().map((e) => [e.type, e.data.notificationId])).toEqual([
        ['notification.queued', id],
        ['notification.sent', id],
      ]);
    } finally {
      await running.stop(1000);
    }
    const text = await metrics.registry.metrics();
    expect(text).toContain('notify_events_total{outcome="sent"} 2');
    expect(text).toContain('notify_event_subscriptions{state="active"} 1');
    expect(text).toContain('notify_event_subscriptions{state="disabled"} 0');
  });
});
