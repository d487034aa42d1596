// Several workers (separate processes and one in this process) draining one
// PostgreSQL outbox: each message is delivered exactly once, none is left behind.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { storeVariants, type TestStore } from '../support/stores';
import { startFakeFcm, type FakeFcm } from './support/fake-fcm';
import { dataSet, fcmProvider, pushWorker } from './support/harness';
import { spawnWorker, storeEnvironment, type WorkerProcess } from './support/worker-process';

const MESSAGES = 2000;
const PROCESSES = 3;

jest.setTimeout(120_000);

const postgres = storeVariants().filter((variant) => variant.name === 'postgres');
(postgres.length > 0 ? describe.each(postgres) : describe.skip.each([{ name: 'postgres (TEST_DATABASE_URL unset)' }]))('scale-out on $name', (variant) => {
  let ctx: TestStore;
  let fcm: FakeFcm;
  let keyDir: string;
  const workers: WorkerProcess[] = [];

  beforeEach(async () => {
    ctx = await (variant as (typeof postgres)[number]).create();
    await ctx.store.writeDataSet(dataSet(100));
    fcm = await startFakeFcm();
    keyDir = mkdtempSync(path.join(os.tmpdir(), 'sns-key-'));
  });
  afterEach(async () => {
    for (const worker of workers) worker.child.kill('SIGKILL');
    await fcm.server.close();
    await ctx.cleanup();
    rmSync(keyDir, { recursive: true, force: true });
  });

  it(`${PROCESSES} worker processes and one in-process worker deliver ${MESSAGES} messages, each once`, async () => {
    const env = {
      ...storeEnvironment(ctx),
      PUSH_PROVIDER: 'fcm',
      FCM_CREDENTIALS: fcm.writeKeyFile(keyDir),
      FCM_BASE_URL: fcm.server.url,
      DELIVERY_POLL_MS: '50',
      LOG_LEVEL: 'info',
    };
    for (let i = 0; i < PROCESSES; i++) workers.push(spawnWorker(env));
    await Promise.all(workers.map((worker) => worker.ready));
    const inProcess = pushWorker(ctx.store, fcmProvider(fcm, 5000));
    inProcess.start();

    // Queued while the workers run, as the server would.
    const started = Date.now();
    const ids = new Set<string>();
    for (let batch = 0; batch < MESSAGES; batch += 100) {
      const queued = await Promise.all(
        Array.from({ length: 100 }, (_, i) => {
          const studentId = String(1001 + i);
          return ctx.store.enqueuePushNotification({ deviceId: `dev-${studentId}`, studentId, type: 'note', title: 't', body: `#${batch + i}`, data: {} });
        }),
      );
      for (const id of queued) ids.add(id);
    }

    // Waits on real work done by other processes, not on a timer of ours.
    for (;;) {
      const [pending] = await ctx.query<{ n: string }>("select count(*) as n from push_notifications where status <> 'sent'");
      if (Number(pending.n) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const drainedMs = Date.now() - started;
    await inProcess.stop(5000);
    for (const worker of workers) worker.child.kill('SIGTERM');
    expect(await Promise.all(workers.map((worker) => worker.exited))).toEqual(Array(PROCESSES).fill(0));

    const received = fcm.messages().map((message) => message.data.notificationId);
    expect(received).toHaveLength(MESSAGES);
    expect(new Set(received)).toEqual(ids);
    const rows = await ctx.query<{ status: string; attempts: number }>('select status, attempts from push_notifications');
    expect(rows.every((row) => row.status === 'sent' && Number(row.attempts) === 1)).toBe(true);
    // For the record, not a target.
    console.log(`scale-out: ${MESSAGES} messages queued and delivered in ${drainedMs} ms by ${PROCESSES + 1} workers`);
  });
});
