// A worker process killed with SIGKILL in the middle of a batch: nothing is
// lost, and only the push notifications whose send had started can arrive
// twice; a login code whose send had started is never sent again, it is
// uncertain (docs/delivery.md#sent-once).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { DeliveryWorker } from '../../src/delivery';
import { createLogPushProvider } from '../../src/delivery/push/log-push-provider';
import { createHttpGatewayProvider } from '../../src/delivery/sms/http-gateway-provider';
import { queueAuthCode, storeVariants, type TestStore } from '../support/stores';
import { startFakeFcm, type FakeFcm } from './support/fake-fcm';
import { FakeHttpServer } from './support/fake-http-server';
import { dataSet, fcmProvider, POLICY, pushWorker } from './support/harness';
import { killWhen, spawnWorker, storeEnvironment } from './support/worker-process';

const MESSAGES = 300;
const ANSWERED = 100;
const KILL_AT = 120;
const LEASE_SECONDS = 30;

jest.setTimeout(60_000);

describe.each(storeVariants())('a worker killed mid-batch on $name', (variant) => {
  let ctx: TestStore;
  let fcm: FakeFcm;
  let keyDir: string;

  beforeEach(async () => {
    ctx = await variant.create();
    await ctx.store.dataSet.writeDataSet(dataSet(MESSAGES));
    fcm = await startFakeFcm();
    keyDir = mkdtempSync(path.join(os.tmpdir(), 'sns-key-'));
  });
  afterEach(async () => {
    await fcm.server.close();
    await ctx.cleanup();
    rmSync(keyDir, { recursive: true, force: true });
  });

  const notificationIds = () => fcm.messages().map((message) => message.data.notificationId);

  it('a second worker delivers everything; duplicates only for sends that had started', async () => {
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
          data: { studentId },
        }),
      );
    }
    // The first answers come back at once; after them the provider goes silent,
    // so the worker has sends under way when it dies.
    fcm.server.script(
      ...Array.from({ length: ANSWERED }, () => ({ status: 200, body: { name: 'projects/p/messages/1' } })),
    );
    fcm.server.answerByDefault('hang');
    const enough = new Promise<void>((resolve) =>
      fcm.server.onRequest(() => fcm.server.requests.length >= KILL_AT && resolve()),
    );

    const first = spawnWorker({
      ...storeEnvironment(ctx),
      PUSH_PROVIDER: 'fcm',
      FCM_CREDENTIALS: fcm.writeKeyFile(keyDir),
      FCM_BASE_URL: fcm.server.url,
      DELIVERY_CONCURRENCY: '32',
      DELIVERY_LEASE_SECONDS: String(LEASE_SECONDS),
      DELIVERY_TIMEOUT_MS: '15000',
    });
    expect(await killWhen(first, enough)).toBeNull();

    const started = new Set(notificationIds());
    const statuses = await ctx.query<{ status: string; n: number }>(
      'select status, count(*) as n from push_notifications group by status',
    );
    expect(statuses.find((s) => s.status === 'sending')).toBeDefined();

    // The second worker runs once the dead worker's leases have ended.
    fcm.server.answerByDefault({ status: 200, body: { name: 'projects/p/messages/2' } });
    const afterLease = await ctx.reopen({ now: () => new Date(Date.now() + (LEASE_SECONDS + 1) * 1000) });
    await pushWorker(afterLease.outbox, fcmProvider(fcm, 5000)).drain();

    const rows = await ctx.store.admin.listPushNotifications();
    expect(rows.filter((row) => row.status !== 'sent')).toEqual([]);
    const received = notificationIds();
    expect(new Set(received)).toEqual(new Set(ids));
    const counts = new Map<string, number>();
    for (const id of received) counts.set(id, (counts.get(id) ?? 0) + 1);
    const duplicated = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
    expect(duplicated.length).toBeGreaterThan(0);
    expect(duplicated.filter((id) => !started.has(id))).toEqual([]);
    expect([...counts.values()].every((n) => n <= 2)).toBe(true);
  });
  it('login codes: a second worker sends each code at most once; those whose send had started are uncertain', async () => {
    const gateway = await FakeHttpServer.start();
    try {
      const phones = Array.from({ length: MESSAGES }, (_, i) => `+9639441${String(i).padStart(5, '0')}`);
      const idByPhone = new Map<string, string>();
      for (const [i, phone] of phones.entries())
        idByPhone.set(phone, await queueAuthCode(ctx.store, { phone, code: String(100000 + i), callerAddress: null }));
      gateway.script(...Array.from({ length: ANSWERED }, () => ({ status: 200, body: { ok: true } })));
      gateway.answerByDefault('hang');
      const enough = new Promise<void>((resolve) =>
        gateway.onRequest(() => gateway.requests.length >= KILL_AT && resolve()),
      );
      const first = spawnWorker({
        ...storeEnvironment(ctx),
        SMS_PROVIDER: 'http',
        SMS_HTTP_URL: `${gateway.url}/send`,
        DELIVERY_CONCURRENCY: '32',
        DELIVERY_LEASE_SECONDS: String(LEASE_SECONDS),
        DELIVERY_TIMEOUT_MS: '15000',
      });
      expect(await killWhen(first, enough)).toBeNull();
      const reachedFirst = gateway.requests.map((r) => new URLSearchParams(r.body).get('to') ?? '');
      const unanswered = new Set(reachedFirst.slice(ANSWERED));

      gateway.answerByDefault({ status: 200, body: { ok: true } });
      const afterLease = await ctx.reopen({ now: () => new Date(Date.now() + (LEASE_SECONDS + 1) * 1000) });
      const logger = pino({ level: 'silent' });
      await new DeliveryWorker({
        store: afterLease.outbox,
        push: createLogPushProvider(logger),
        sms: createHttpGatewayProvider({
          url: `${gateway.url}/send`,
          method: 'POST',
          format: 'form',
          headers: {},
          bodyTemplate: 'to={phone}&text={text}',
          idempotencyHeader: null,
          timeoutMs: 5000,
        }),
        observer: { attempted: () => undefined },
        logger,
        policy: POLICY,
        authCodeMaxAgeMs: 600_000,
        smsTemplate: 'Your code is {code}',
        now: () => new Date(Date.now() + (LEASE_SECONDS + 1) * 1000),
        random: () => 0,
        concurrency: 32,
        leaseSeconds: LEASE_SECONDS,
        pollMs: 50,
      }).drain();

      const received = new Map<string, number>();
      for (const request of gateway.requests) {
        const to = new URLSearchParams(request.body).get('to') ?? '';
        received.set(to, (received.get(to) ?? 0) + 1);
      }
      const rows = await ctx.store.admin.listAuthCodeMessages();
      const statusOf = new Map(rows.map((row) => [row.id, row.status]));
      const uncertain = phones.filter((phone) => statusOf.get(idByPhone.get(phone)!) === 'uncertain');
      process.stdout.write(
        `crash, login codes on ${variant.name}: ${MESSAGES} queued, ${received.size} reached the gateway, ` +
          `${[...received.values()].filter((n) => n > 1).length} twice, ${uncertain.length} uncertain ` +
          `(${uncertain.filter((phone) => !received.has(phone)).length} of them never reached it)\n`,
      );
      expect([...received].filter(([, n]) => n > 1)).toEqual([]);
      expect(rows.filter((row) => row.status !== 'sent' && row.status !== 'uncertain')).toEqual([]);
      // What reached the gateway and got no answer before the kill is uncertain, not sent again.
      expect(unanswered.size).toBeGreaterThan(0);
      expect([...unanswered].filter((phone) => statusOf.get(idByPhone.get(phone)!) !== 'uncertain')).toEqual([]);
      // Every code sent is one the gateway received once; none uncertain was received twice.
      expect(
        phones.filter((phone) => statusOf.get(idByPhone.get(phone)!) === 'sent' && received.get(phone) !== 1),
      ).toEqual([]);
      // Only sends under way when the worker died (at most its concurrency) are uncertain.
      expect(uncertain.length).toBeLessThanOrEqual(32);
    } finally {
      await gateway.close();
    }
  });
});
