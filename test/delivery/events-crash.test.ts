// A worker process killed with SIGKILL while delivery events are in flight
// to a school's receiver: a second worker delivers every event once its
// leases end, in order per message; only events that had reached the
// receiver unanswered arrive twice (docs/delivery.md#delivery-events).
import pino from 'pino';
import { EventWorker } from '../../src/delivery/events/event-worker';
import { storeVariants, type TestStore } from '../support/stores';
import { Receiver, SECRET } from './support/event-receiver';
import { dataSet, SCHOOL } from './support/harness';
import { killWhen, spawnWorker, storeEnvironment } from './support/worker-process';

const MESSAGES = 20;
const ANSWERED = 6;
const LEASE_SECONDS = 30;

jest.setTimeout(60_000);

describe.each(storeVariants())('an event worker killed mid-batch on $name', (variant) => {
  let ctx: TestStore;
  let receiver: Receiver;

  beforeEach(async () => {
    ctx = await variant.create();
    await ctx.store.dataSet.writeDataSet(dataSet(MESSAGES));
    receiver = new Receiver(SECRET);
    await receiver.start();
    await ctx.store.admin.putEventSubscription(SCHOOL, { url: receiver.url, secret: SECRET });
  });
  afterEach(async () => {
    await receiver.close();
    await ctx.cleanup();
  });

  it('a second worker delivers every event; repeats only for deliveries under way', async () => {
    const ids: string[] = [];
    for (let i = 0; i < MESSAGES; i++) {
      const studentId = String(1001 + i);
      ids.push(
        await ctx.store.outbox.enqueuePushNotification({
          deviceId: `dev-${studentId}`,
          studentId,
          type: 'note',
          title: 't',
          body: 'b',
          data: {},
        }),
      );
    }
    // The first deliveries are answered; then the receiver keeps them open, so the worker dies with events in flight.
    let calls = 0;
    receiver.answer = () => (++calls <= ANSWERED ? 200 : 'hang');
    const enough = new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (receiver.deliveries.length >= ANSWERED + 4) {
          clearInterval(timer);
          resolve();
        }
      }, 10);
    });
    const first = spawnWorker({
      ...storeEnvironment(ctx),
      PUSH_PROVIDER: 'log',
      DELIVERY_POLL_MS: '50',
      DELIVERY_LEASE_SECONDS: String(LEASE_SECONDS),
      DELIVERY_TIMEOUT_MS: '15000',
      EVENTS_ALLOW_PRIVATE: 'true',
    });
    expect(await killWhen(first, enough)).toBeNull();
    const unanswered = new Set(receiver.deliveries.filter((d) => d.answered === 0).map((d) => d.id));
    expect(unanswered.size).toBe(4);

    // The second worker, once the dead worker's leases have ended.
    receiver.answer = () => 200;
    const afterLease = await ctx.reopen({ now: () => new Date(Date.now() + (LEASE_SECONDS + 1) * 1000) });
    const second = new EventWorker({
      store: afterLease.outbox,
      logger: pino({ level: 'silent' }),
      now: () => new Date(Date.now() + (LEASE_SECONDS + 1) * 1000),
      random: () => 0,
      concurrency: 16,
      perSchool: 4,
      leaseSeconds: LEASE_SECONDS,
      pollMs: 50,
      timeoutMs: 5000,
      baseDelayMs: 10_000,
      maxDelayMs: 3_600_000,
      health: { failingAfterMs: 3_600_000, disableAfterMs: 86_400_000 },
      allowPrivate: true,
    });
    while ((await second.runOnce()) > 0);

    const rows = await ctx.query<{ id: string; status: string }>('select id, status from event_outbox');
    // Each push's queued event, and its sent one if the first worker sent the push before it died.
    expect(rows.length).toBeGreaterThanOrEqual(MESSAGES);
    expect(rows.filter((row) => row.status !== 'sent')).toEqual([]);
    expect(receiver.deliveries.filter((d) => !d.verified)).toEqual([]);
    const accepted = receiver.accepted();
    expect(new Set(accepted.map((e) => e.id))).toEqual(new Set(rows.map((row) => row.id)));
    const counts = new Map<string, number>();
    for (const d of receiver.deliveries) counts.set(d.id, (counts.get(d.id) ?? 0) + 1);
    const repeated = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
    expect(new Set(repeated)).toEqual(unanswered);
    for (const id of ids) {
      const types = accepted.filter((e) => e.data.notificationId === id).map((e) => e.type);
      expect(types[0]).toBe('notification.queued');
      expect(types.slice(1).every((type) => type === 'notification.sent')).toBe(true);
    }
  });
});
