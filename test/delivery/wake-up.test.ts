// LISTEN/NOTIFY wake-up (src/delivery/outbox-wake-up.ts): a worker whose poll
// is far away is woken by a message queued through another store (another
// process), again after its listening connection was killed, and falls back
// to its usual poll while that connection is down.
import pino from 'pino';
import { startWakeUp, type WakeUpSource } from '../../src/delivery/outbox-wake-up';
import type { OutboxSubscription, OpenedStore } from '../../src/store';
import { postgresVariant, describeWithPostgres, type TestStore } from '../support/stores';
import { dataSet, pushWorker } from './support/harness';
import { createLogPushProvider } from '../../src/delivery/push/log-push-provider';

const silent = pino({ level: 'silent' });
const until = async (condition: () => boolean | Promise<boolean>) => {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20));
};

describe('startWakeUp', () => {
  function target() {
    const events: string[] = [];
    return { events, notify: () => events.push('notify'), pollEvery: (ms: number) => events.push(`poll ${ms}`) };
  }

  it('does nothing on a database without LISTEN', async () => {
    const t = target();
    const wakeUp = startWakeUp({ listenForOutbox: () => null }, t, {
      pollMs: 1000,
      safetyPollMs: 5000,
      logger: silent,
    });
    await wakeUp.stop();
    expect(t.events).toEqual([]);
    expect(wakeUp.listening).toBe(false);
  });

  it('retries a failed connection with a growing wait, then polls slowly and passes notifications on', async () => {
    const t = target();
    let attempts = 0;
    let notify: (channel: string) => void = () => undefined;
    let end: (error: Error | undefined) => void = () => undefined;
    const source: WakeUpSource = {
      listenForOutbox(onNotification) {
        attempts++;
        if (attempts <= 2) return Promise.reject(new Error('connection refused'));
        notify = onNotification;
        const ended = new Promise<Error | undefined>((resolve) => (end = resolve));
        const subscription: OutboxSubscription = { ended, close: async () => end(undefined) };
        return Promise.resolve(subscription);
      },
    };
    const wakeUp = startWakeUp(source, t, {
      pollMs: 1000,
      safetyPollMs: 5000,
      logger: silent,
      backoffMs: 1,
      random: () => 1,
    });
    await until(() => wakeUp.listening);
    expect(attempts).toBe(3);
    expect(t.events).toEqual(['poll 5000', 'notify']);
    notify('push');
    expect(t.events).toEqual(['poll 5000', 'notify', 'notify']);
    // The connection drops: back to the usual poll, and a new connection.
    end(new Error('terminated'));
    await until(() => attempts === 4 && wakeUp.listening);
    expect(t.events).toEqual(['poll 5000', 'notify', 'notify', 'poll 1000', 'poll 5000', 'notify']);
    await wakeUp.stop();
    expect(wakeUp.listening).toBe(false);
  });
});

describeWithPostgres('wake-up on postgres', (databaseUrl) => {
  const variant = postgresVariant(databaseUrl);
  let ctx: TestStore;
  let other: OpenedStore;
  beforeEach(async () => {
    ctx = await variant.create();
    await ctx.store.dataSet.writeDataSet(dataSet(3));
    other = await ctx.reopen();
  });
  afterEach(() => ctx.cleanup());

  const queue = (body: string) =>
    other.outbox.enqueuePushNotification({
      deviceId: 'dev-1001',
      studentId: '1001',
      type: 'note',
      title: 't',
      body,
      data: {},
    });
  const sent = async () =>
    Number(
      (await ctx.query<{ n: string }>("select count(*) as n from push_notifications where status = 'sent'"))[0]?.n,
    );

  // Without a notification the worker would not look again for ten minutes, past this test's time limit.
  it('a worker polling every ten minutes delivers what another process queues, also after its LISTEN connection was killed', async () => {
    const worker = pushWorker(ctx.store.outbox, createLogPushProvider(silent));
    // Counts the LISTEN connections opened: the reconnection can take less than one look of until(),
    // so waiting to see `listening` false first could miss it and wait for ever.
    let opened = 0;
    const source: WakeUpSource = {
      listenForOutbox: (onNotification) =>
        ctx.store.outbox.listenForOutbox(onNotification)?.then((subscription) => {
          opened += 1;
          return subscription;
        }) ?? null,
    };
    const wakeUp = startWakeUp(source, worker, {
      pollMs: 600_000,
      safetyPollMs: 600_000,
      logger: silent,
      backoffMs: 10,
    });
    worker.pollEvery(600_000);
    try {
      await until(() => wakeUp.listening);
      worker.start();
      await queue('first');
      await until(async () => (await sent()) === 1);
      expect(worker.health()).toMatchObject({ running: true, lastClaimAt: expect.any(Date) });

      const [schema] = await ctx.query<{ name: string }>('select current_schema() as name');
      const killed = await ctx.query<{ pid: number }>(
        "select pg_terminate_backend(pid) as done, pid from pg_stat_activity where query = 'listen \"' || 'outbox_' || md5(?) || '\"'",
        [schema?.name],
      );
      expect(killed).toHaveLength(1);
      await until(() => opened === 2 && wakeUp.listening);
      await queue('second');
      await until(async () => (await sent()) === 2);
    } finally {
      await worker.stop(1000);
      await wakeUp.stop();
    }
    expect(worker.health().running).toBe(false);
  });

  it('an operator re-queueing a dead message wakes the listeners too', async () => {
    const id = await queue('dead one');
    await ctx.query("update push_notifications set status = 'dead' where id = ?", [id]);
    const heard: string[] = [];
    const subscription = await ctx.store.outbox.listenForOutbox((channel) => heard.push(channel));
    try {
      expect(await other.admin.requeueOutboxMessage('push', id)).toBe('requeued');
      await until(() => heard.length === 1);
      await ctx.query("update push_notifications set status = 'dead' where id = ?", [id]);
      expect(await other.admin.requeueDeadOutboxMessages('push')).toBe(1);
      await until(() => heard.length === 2);
      expect(heard).toEqual(['push', 'push']);
    } finally {
      await subscription?.close();
    }
  });
});
