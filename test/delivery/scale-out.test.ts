// Many nodes on one PostgreSQL schema, as a district would run them.
//
// 1. Several workers (processes and one in this process) drain one outbox:
//    each message delivered exactly once, none left behind.
// 2. Two service processes and two worker processes; clients spread their
//    SendNotificationType calls over both services; mid-run one worker and
//    one service are killed with SIGKILL and started again. Every call that
//    was acknowledged is delivered; no message is ever being sent by two
//    workers at once (the fake FCM knows each worker by its access token and
//    records when each send began and ended); repeats are counted and printed.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { postgresVariant, describeWithPostgres, type TestStore } from '../support/stores';
import { overlaps, recordSends, startFakeFcm, type FakeFcm } from './support/fake-fcm';
import { dataSet, fcmProvider, pushWorker, SCHOOL } from './support/harness';
import { sendNotification } from './support/send-notification';
import { spawnWorker, storeEnvironment, type WorkerProcess } from './support/worker-process';

const MESSAGES = 1000;
const PROCESSES = 3;
const CALLS = 1000;
const CLIENTS = 16;

jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '../..');

interface ServiceProcess {
  readonly child: ChildProcess;
  readonly port: Promise<number>;
  readonly exited: Promise<number | null>;
}

/** `node src/main.ts` (transpiled as the worker processes are), on an ephemeral port. */
function spawnService(env: Record<string, string>): ServiceProcess {
  const child = spawn(
    process.execPath,
    ['-r', path.join(__dirname, 'support/register-ts.js'), path.join(ROOT, 'src/main.ts')],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'json',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = new Promise<number>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"port":(\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then(() => reject(new Error(`the service exited before it listened:\n${output}`)));
  });
  port.catch(() => undefined);
  return { child, port, exited };
}

describeWithPostgres('scale-out on postgres', (databaseUrl) => {
  const variant = postgresVariant(databaseUrl);
  let ctx: TestStore;
  let fcm: FakeFcm;
  let keyDir: string;
  const children: ChildProcess[] = [];

  beforeEach(async () => {
    ctx = await variant.create();
    await ctx.store.dataSet.writeDataSet(dataSet(100));
    fcm = await startFakeFcm();
    keyDir = mkdtempSync(path.join(os.tmpdir(), 'sns-key-'));
  });
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    await fcm.server.close();
    await ctx.cleanup();
    rmSync(keyDir, { recursive: true, force: true });
  });

  const workerEnvironment = () => ({
    ...storeEnvironment(ctx),
    PUSH_PROVIDER: 'fcm',
    FCM_CREDENTIALS: fcm.writeKeyFile(keyDir),
    FCM_BASE_URL: fcm.server.url,
    DELIVERY_POLL_MS: '50',
    // Generous: on a loaded machine a send that times out is sent again (at
    // least once), which the first case would count as a repeat.
    DELIVERY_TIMEOUT_MS: '30000',
    LOG_LEVEL: 'info',
  });

  it(`${PROCESSES} worker processes and one in-process worker deliver ${MESSAGES} messages, each once`, async () => {
    const workers: WorkerProcess[] = [];
    for (let i = 0; i < PROCESSES; i++) workers.push(spawnWorker(workerEnvironment()));
    children.push(...workers.map((worker) => worker.child));
    await Promise.all(workers.map((worker) => worker.ready));
    const inProcess = pushWorker(ctx.store.outbox, fcmProvider(fcm, 30_000));
    inProcess.start();

    // Queued while the workers run, as the server would.
    const started = Date.now();
    const ids = new Set<string>();
    for (let batch = 0; batch < MESSAGES; batch += 100) {
      const queued = await Promise.all(
        Array.from({ length: 100 }, (_, i) => {
          const studentId = String(1001 + i);
          return ctx.store.outbox.enqueuePushNotification({
            deviceId: `dev-${studentId}`,
            studentId,
            type: 'note',
            title: 't',
            body: `#${batch + i}`,
            data: {},
          });
        }),
      );
      for (const id of queued) ids.add(id);
    }

    // Waits on real work done by other processes, not on a timer of ours.
    for (;;) {
      const [pending] = await ctx.query<{ n: string }>(
        "select count(*) as n from push_notifications where status <> 'sent'",
      );
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
    const rows = await ctx.query<{ status: string; attempts: number }>(
      'select status, attempts from push_notifications',
    );
    expect(rows.every((row) => row.status === 'sent' && Number(row.attempts) === 1)).toBe(true);
    // For the record, not a target.
    console.log(`scale-out: ${MESSAGES} messages queued and delivered in ${drainedMs} ms by ${PROCESSES + 1} workers`);
  });

  it('two services and two workers, one of each killed with SIGKILL mid-run and restarted: every acknowledged call delivered, never by two workers at once', async () => {
    const sends = recordSends(fcm);
    const env = {
      ...workerEnvironment(),
      // A killed worker's messages are taken over when their lease ends: short here, so that the test stays short.
      DELIVERY_LEASE_SECONDS: '5',
      DELIVERY_TIMEOUT_MS: '2500',
      DELIVERY_SAFETY_POLL_MS: '500',
      DELIVERY_POLL_MS: '200',
    };
    const serviceEnv = { ...storeEnvironment(ctx), WORKER: 'false', DEMO_DATA: 'false' };
    const services = [spawnService(serviceEnv), spawnService(serviceEnv)];
    const workers = [spawnWorker(env), spawnWorker(env)];
    children.push(...services.map((s) => s.child), ...workers.map((w) => w.child));
    const ports: Array<number | null> = await Promise.all(services.map((s) => s.port));
    await Promise.all(workers.map((w) => w.ready));

    const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
    const acknowledged = new Set<string>();
    let refused = 0;
    let next = 0;
    const events: string[] = [];
    const client = async (c: number) => {
      while (next < CALLS) {
        const n = next++;
        // Spread over the services; while one is down its share goes to the other.
        const live = ports.filter((port): port is number => port !== null);
        const port = live[(n + c) % live.length];
        const type = `scale-${n}`;
        const status = await sendNotification(agent, port, {
          id: String(1001 + (n % 100)),
          baseUrlSchool: SCHOOL,
          TypeNotfication: type,
        });
        if (status === 200) acknowledged.add(type);
        else refused++;
        if (n === Math.floor(CALLS / 3)) {
          events.push(`worker killed at call ${n}`);
          killWorker();
        }
        if (n === Math.floor(CALLS / 2)) {
          events.push(`service killed at call ${n}`);
          killService();
        }
      }
    };
    const restarts: Promise<void>[] = [];
    const killWorker = () => {
      workers[0].child.kill('SIGKILL');
      restarts.push(
        workers[0].exited.then(async () => {
          const again = spawnWorker(env);
          children.push(again.child);
          await again.ready;
          events.push('worker restarted');
        }),
      );
    };
    const killService = () => {
      services[1].child.kill('SIGKILL');
      ports[1] = null;
      restarts.push(
        services[1].exited.then(async () => {
          const again = spawnService(serviceEnv);
          children.push(again.child);
          ports[1] = await again.port;
          events.push('service restarted');
        }),
      );
    };

    const started = Date.now();
    await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
    await Promise.all(restarts);
    agent.destroy();

    // Every acknowledged call's message sent (the workers keep running meanwhile).
    for (;;) {
      const [pending] = await ctx.query<{ n: string }>(
        "select count(*) as n from push_notifications where status <> 'sent'",
      );
      const delivered = new Set(sends.filter((s) => s.end !== Infinity).map((s) => s.type));
      if (Number(pending.n) === 0 && [...acknowledged].every((type) => delivered.has(type))) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const elapsedMs = Date.now() - started;

    const rows = await ctx.query<{ id: string; type: string; status: string }>(
      'select id, type, status from push_notifications',
    );
    const stored = new Set(rows.map((row) => row.type));
    expect([...acknowledged].filter((type) => !stored.has(type))).toEqual([]);
    expect(rows.every((row) => row.status === 'sent')).toBe(true);
    expect(new Set(sends.map((s) => s.id))).toEqual(new Set(rows.map((row) => row.id)));
    expect(overlaps(sends)).toBe(0);
    const duplicates = sends.length - new Set(sends.map((s) => s.id)).size;
    const workersSeen = new Set(sends.map((s) => s.worker)).size;
    console.log(
      [
        `scale-out, 2 services + 2 workers on one PostgreSQL schema, ${CLIENTS} clients, ${CALLS} calls (${events.join(', ')}):`,
        `  acknowledged ${acknowledged.size}, refused or cut off ${refused}, stored ${rows.length}, all sent in ${elapsedMs} ms`,
        `  sends ${sends.length} by ${workersSeen} worker processes, repeated (at least once) ${duplicates}, sent by two workers at once ${overlaps(sends)}`,
      ].join('\n'),
    );
    expect(events).toEqual(expect.arrayContaining(['worker restarted', 'service restarted']));
  });
});
