// `npm run worker` with METRICS_PORT: its own /metrics, with what it delivered
// and the outbox it works from.
import { type TestStore, sqliteVariant } from '../support/stores';
import { dataSet } from './support/harness';
import { spawnWorker, storeEnvironment, type WorkerProcess } from './support/worker-process';

jest.setTimeout(30_000);
const sqlite = sqliteVariant();

describe('a worker process with METRICS_PORT', () => {
  let ctx: TestStore;
  let worker: WorkerProcess | null = null;
  beforeEach(async () => {
    ctx = await sqlite.create();
    await ctx.store.dataSet.writeDataSet(dataSet(2));
  });
  afterEach(async () => {
    worker?.child.kill('SIGTERM');
    await worker?.exited;
    worker = null;
    await ctx.cleanup();
  });

  it('serves /metrics on that port, counting its deliveries, and stops with the worker', async () => {
    await ctx.store.outbox.enqueuePushNotification({
      deviceId: 'dev-1001',
      studentId: '1001',
      type: 'exam',
      title: 't',
      body: 'b',
      data: {},
    });
    worker = spawnWorker({
      ...storeEnvironment(ctx),
      METRICS_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DELIVERY_POLL_MS: '50',
    });
    await worker.ready;
    const port = Number(/"metricsPort":(\d+)/.exec(worker.output())?.[1]);
    expect(port).toBeGreaterThan(0);

    let text = '';
    for (let i = 0; i < 100 && !text.includes('outcome="sent"} 1'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    }
    expect(text).toContain('notify_deliveries_total{channel="push",provider="log",outcome="sent"} 1');
    expect(text).toMatch(/notify_outbox_messages\{channel="push",status="sent"\} 1/);
    // The send is over: nothing in flight, and the adaptive limit at its start.
    expect(text).toContain('notify_delivery_in_flight{channel="push",provider="log"} 0');
    expect(text).toContain('notify_delivery_concurrency_limit{channel="push",provider="log"} 32');
    expect(text).toContain('process_cpu_user_seconds_total');
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);

    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });
});
