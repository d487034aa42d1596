// The worker running on its own: woken by new work, stopped cleanly.
import { createDeliveryLimits } from '../../src/delivery/concurrency';
import { queueAuthCode, sqliteVariant } from '../support/stores';
import { queuePush, startHarness, type Harness } from './support/harness';

const sqlite = sqliteVariant();

describe('the worker loop', () => {
  let h: Harness;
  beforeEach(async () => {
    // A poll far beyond the test's time limit: only notify() can make these pass.
    h = await startHarness(sqlite, { pollMs: 3_600_000 });
  });
  afterEach(() => h.close());

  const nextRequest = () => new Promise<void>((resolve) => h.fcm.server.onRequest(() => resolve()));
  const statusOf = async (id: string) =>
    (await h.ctx.store.admin.listPushNotifications()).find((row) => row.id === id)?.status;

  it('sends what was queued before it started, then sleeps until notified', async () => {
    const first = await queuePush(h);
    const arrived = nextRequest();
    h.worker.start();
    await arrived;

    const second = await queuePush(h, '1002');
    const again = nextRequest();
    h.worker.notify();
    await again;
    await h.worker.stop(5000);
    expect([await statusOf(first), await statusOf(second)]).toEqual(['sent', 'sent']);
  });

  it('stop() lets a send under way finish and records it', async () => {
    const id = await queuePush(h);
    let answer: (value: { status: number; body: unknown }) => void = () => undefined;
    h.fcm.server.script(new Promise((resolve) => (answer = resolve)));
    const arrived = nextRequest();
    h.worker.start();
    await arrived;

    let stopped = false;
    const stopping = h.worker.stop(5000).then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    answer({ status: 200, body: { name: 'projects/p/messages/7' } });
    await stopping;
    expect(await statusOf(id)).toBe('sent');
    // Stopped means stopped: new work is not claimed.
    await queuePush(h, '1002');
    h.worker.notify();
    expect(h.fcm.server.requests).toHaveLength(1);
  });

  it('stop() gives up on a send that does not finish in time; the lease keeps the message safe', async () => {
    const id = await queuePush(h);
    h.fcm.server.answerByDefault('hang');
    const arrived = nextRequest();
    h.worker.start();
    await arrived;
    await h.worker.stop(100);
    const [row] = await h.ctx.store.admin.listPushNotifications();
    expect(row).toMatchObject({ id, status: 'sending', lockedUntil: '2030-01-01T00:01:00.000Z' });
    expect(h.logs.some((line) => line.includes('delivery worker stopped with sends under way'))).toBe(true);
  });

  it('a channel whose limit is full does not hold up new work for the other', async () => {
    await h.close();
    // One send at a time per channel, so that one hanging push fills its channel.
    // The push hangs far beyond the test's time limit: only the SMS channel's own room can make this pass.
    h = await startHarness(sqlite, {
      pollMs: 3_600_000,
      timeoutMs: 120_000,
      limits: createDeliveryLimits({ floor: 1, ceiling: 1 }),
    });
    h.fcm.server.answerByDefault('hang');
    const arrived = nextRequest();
    await queuePush(h);
    h.worker.start();
    await arrived;

    const smsSent = new Promise<void>((resolve) => h.gateway.onRequest(() => resolve()));
    await queueAuthCode(h.ctx.store, { phone: '+963944123456', code: '482913', callerAddress: '203.0.113.9' });
    h.worker.notify();
    // Before, the loop waited for the push channel to free up: the code went out only after the push's time limit.
    await smsSent;
    expect(h.gateway.requests).toHaveLength(1);
  }, 15_000);

  it('a busy channel claims again once a quarter of its limit is free, not only half', async () => {
    await h.close();
    // Eight sends at once; every answer waits until the test gives it (no send times out meanwhile).
    h = await startHarness(sqlite, {
      pollMs: 3_600_000,
      timeoutMs: 120_000,
      limits: createDeliveryLimits({ floor: 8, ceiling: 8 }),
    });
    const answers: Array<() => void> = [];
    h.fcm.server.script(
      ...Array.from(
        { length: 20 },
        () =>
          new Promise<{ status: number; body: unknown }>((resolve) =>
            answers.push(() => resolve({ status: 200, body: { name: 'projects/p/messages/1' } })),
          ),
      ),
    );
    for (let i = 0; i < 20; i++) await queuePush(h, '1001', `type-${i}`);
    const requestsReach = (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (h.fcm.server.requests.length >= n ? resolve() : setTimeout(check, 5));
        check();
      });
    h.worker.start();
    await requestsReach(8);
    // Two of the eight answered: a quarter of the limit is free, and the worker claims two more.
    answers[0]();
    answers[1]();
    // Waiting for half the limit, it would not claim before the other sends end: give it two seconds.
    await Promise.race([requestsReach(10), new Promise((resolve) => setTimeout(resolve, 2000))]);
    const claimedMeanwhile = h.fcm.server.requests.length;
    for (const answer of answers) answer();
    await h.worker.stop(5000);
    expect(claimedMeanwhile).toBe(10);
  });
  it('while pushes keep it busy, looks for login codes at most every 50 ms, and at once when told one was queued', async () => {
    await h.close();
    h = await startHarness(sqlite, { pollMs: 3_600_000, limits: createDeliveryLimits({ floor: 4, ceiling: 4 }) });
    const smsLooks = jest.spyOn(h.ctx.store.outbox, 'claimAuthCodeMessages');
    const pushClaims = jest.spyOn(h.ctx.store.outbox, 'claimPushNotifications');
    for (let i = 0; i < 40; i++) await queuePush(h, '1001', `type-${i}`);
    const started = performance.now();
    h.worker.start();
    await new Promise<void>((resolve) => {
      const check = () => (h.fcm.server.requests.length >= 40 ? resolve() : setTimeout(check, 2));
      check();
    });
    const elapsed = performance.now() - started;
    // An empty look is a write transaction (docs/delivery.md#cpu-per-push): not one per push claim.
    expect(pushClaims.mock.calls.length).toBeGreaterThanOrEqual(10);
    expect(smsLooks.mock.calls.length).toBeLessThanOrEqual(2 + Math.ceil(elapsed / 50));

    // A code queued now is looked for at once when the worker is told, however recent the last look.
    let answer: (value: { status: number; body: unknown }) => void = () => undefined;
    h.fcm.server.script(new Promise((resolve) => (answer = resolve)));
    await queuePush(h, '1002', 'held');
    h.worker.notify('push');
    await new Promise<void>((resolve) => {
      const check = () => (h.fcm.server.requests.length >= 41 ? resolve() : setTimeout(check, 2));
      check();
    });
    const smsSent = new Promise<void>((resolve) => h.gateway.onRequest(() => resolve()));
    await queueAuthCode(h.ctx.store, { phone: '+963944123456', code: '482913', callerAddress: '203.0.113.9' });
    h.worker.notify('sms');
    await smsSent;
    expect(h.gateway.requests).toHaveLength(1);
    answer({ status: 200, body: { name: 'projects/p/messages/41' } });
    await h.worker.stop(5000);
  }, 15_000);
});
