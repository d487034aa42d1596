// A worker process killed with SIGKILL in the middle of a batch: nothing is
// lost, and only the messages whose send had started can arrive twice.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { storeVariants, type TestStore } from '../support/stores';
import { startFakeFcm, type FakeFcm } from './support/fake-fcm';
import { dataSet, fcmProvider, pushWorker } from './support/harness';
import { spawnWorker, storeEnvironment } from './support/worker-process';

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
    await Promise.race([
      enough,
      first.exited.then(() => Promise.reject(new Error(`the worker exited early:\n${first.output()}`))),
    ]);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();

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
});
