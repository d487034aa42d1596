// npm run bench:scale-out: the topology of test/delivery/scale-out.test.ts as
// a benchmark. Two service processes (WORKER=false) and two `npm run worker`
// processes on one PostgreSQL schema; clients spread SendNotificationType
// calls (HTTP POST) over both services; a fake FCM on loopback answers each
// send after BENCH_FCM_LATENCY_MS (default 20) and records which worker (by
// its access token) sent which message, and when. With BENCH_KILL=1 (the
// default) one worker and one service are killed with SIGKILL a third and a
// half of the way through and started again.
//
// Prints: calls answered per second, messages delivered per second (first
// call to last delivery), repeats, and sends of one message by two workers
// at once (must be 0). Needs BENCH_DATABASE_URL or TEST_DATABASE_URL and
// `npm run build`. One machine runs everything: read the figures as ratios.
// The fake FCM and the call are the scale-out test's own
// (test/delivery/support/fake-fcm.ts, test/delivery/support/send-notification.ts).
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { overlaps, recordSends, startFakeFcm } from '../test/delivery/support/fake-fcm';
import { loadDataSet, SCHOOL } from '../test/chaos/support/write-load';
import { sendNotification } from '../test/delivery/support/send-notification';
import { storeEnvironment } from '../test/delivery/support/worker-process';
import {
  checkPositive,
  createLocation,
  DATABASE_URL,
  openStore,
  runMain,
  scaled,
  skipPart,
  spawnUntilReady,
  type Started,
} from './bench-support';

const CALLS = scaled('BENCH_CALLS', 5_000, 40);
const CLIENTS = scaled('BENCH_CLIENTS', 32, 4);
const LATENCY_MS = scaled('BENCH_FCM_LATENCY_MS', 20, 5);
const KILL = process.env.BENCH_KILL !== '0';
const STUDENTS = scaled(null, 1000, 40);
// The chaos tests' students (test/chaos/support/write-load.ts): ids from 5001, one school.
const FIRST_STUDENT = 5001;

const start = (script: string, env: Record<string, string>, readyPattern: RegExp): Started =>
  spawnUntilReady(script, { LOG_FORMAT: 'json', ...env }, readyPattern);

const startService = (env: Record<string, string>): Started & { port: Promise<number> } => {
  const s = start(
    'dist/main.js',
    { ...env, PORT: '0', HOST: '127.0.0.1', WORKER: 'false', DEMO_DATA: 'false' },
    /"port":(\d+)/,
  );
  return { ...s, port: s.ready.then((match) => Number(match[1])) };
};
const startWorker = (env: Record<string, string>): Started =>
  start('dist/cli/worker.js', env, /"msg":"worker running"/);

async function main(): Promise<void> {
  if (DATABASE_URL === '') {
    skipPart('bench:scale-out', 'it needs PostgreSQL: set BENCH_DATABASE_URL or TEST_DATABASE_URL');
    return;
  }
  const location = createLocation('postgres');
  const storeEnv = storeEnvironment(location);
  const keyDir = mkdtempSync(path.join(os.tmpdir(), 'sns-bench-key-'));
  const fcm = await startFakeFcm();
  const sends = recordSends(fcm, () => LATENCY_MS);
  const children: Started['child'][] = [];
  try {
    const store = await openStore(location.options);
    await store.dataSet.writeDataSet(loadDataSet(STUDENTS));
    await store.lifecycle.close();

    const workerEnv = {
      ...storeEnv,
      PUSH_PROVIDER: 'fcm',
      FCM_CREDENTIALS: fcm.writeKeyFile(keyDir),
      FCM_BASE_URL: fcm.server.url,
      // A killed worker's messages are taken over when their lease ends.
      DELIVERY_LEASE_SECONDS: '5',
      DELIVERY_TIMEOUT_MS: '2000',
      DELIVERY_SAFETY_POLL_MS: '500',
      DELIVERY_POLL_MS: '200',
    };
    const services = [startService(storeEnv), startService(storeEnv)];
    const workers = [startWorker(workerEnv), startWorker(workerEnv)];
    children.push(...services.map((s) => s.child), ...workers.map((w) => w.child));
    const ports: Array<number | null> = await Promise.all(services.map((s) => s.port));
    await Promise.all(workers.map((w) => w.ready));

    const events: string[] = [];
    const restarts: Promise<void>[] = [];
    const kill: Record<number, () => void> = {
      [Math.floor(CALLS / 3)]: () => {
        workers[0].child.kill('SIGKILL');
        events.push('worker killed');
        restarts.push(
          workers[0].exited.then(async () => {
            const again = startWorker(workerEnv);
            children.push(again.child);
            await again.ready;
            events.push('worker restarted');
          }),
        );
      },
      [Math.floor(CALLS / 2)]: () => {
        services[1].child.kill('SIGKILL');
        ports[1] = null;
        events.push('service killed');
        restarts.push(
          services[1].exited.then(async () => {
            const again = startService(storeEnv);
            children.push(again.child);
            ports[1] = await again.port;
            events.push('service restarted');
          }),
        );
      },
    };
    const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
    const acknowledged = new Set<string>();
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        while (next < CALLS) {
          const n = next++;
          const live = ports.filter((port) => port !== null);
          const status = await sendNotification(agent, live[(n + c) % live.length], {
            id: String(FIRST_STUDENT + (n % STUDENTS)),
            baseUrlSchool: SCHOOL,
            TypeNotfication: `bench-${n}`,
          });
          if (status === 200) acknowledged.add(`bench-${n}`);
          if (KILL) kill[n]?.();
        }
      }),
    );
    const callsMs = Date.now() - started;
    agent.destroy();

    const deadline = Date.now() + 300_000;
    for (;;) {
      const delivered = new Set(sends.filter((s) => s.end !== Infinity).map((s) => s.type));
      if ([...acknowledged].every((type) => delivered.has(type))) break;
      if (Date.now() > deadline)
        throw new Error(
          `${[...acknowledged].filter((type) => !delivered.has(type)).length} acknowledged calls not delivered after 5 minutes`,
        );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const lastDelivery = Math.max(...sends.filter((s) => s.end !== Infinity).map((s) => s.end));
    await Promise.all(restarts);
    const unique = new Set(sends.map((s) => s.id)).size;
    checkPositive('calls acknowledged', acknowledged.size);
    checkPositive('messages delivered', unique);
    checkPositive('messages/s', (unique / (lastDelivery - started)) * 1000);
    console.log(
      `\nScale-out: 2 services + 2 workers on one PostgreSQL schema, ${CLIENTS} clients, ${CALLS} SendNotificationType calls, fake FCM answering after ${LATENCY_MS} ms${KILL ? `; ${events.join(', ')}` : ''}`,
    );
    console.log(
      `  calls answered        ${acknowledged.size} acknowledged, ${CALLS - acknowledged.size} refused or cut off, ${Math.round((CALLS / callsMs) * 1000)} calls/s`,
    );
    console.log(
      `  delivered             ${unique} messages, ${Math.round((unique / (lastDelivery - started)) * 1000)} messages/s (first call to last delivery)`,
    );
    console.log(`  repeats               ${sends.length - unique} (messages sent again after their worker died)`);
    console.log(`  sent by two at once   ${overlaps(sends)}`);
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await fcm.server.close();
    rmSync(keyDir, { recursive: true, force: true });
    await location.remove();
  }
}

// Exits at once when done: the killed children's sockets may hold the event loop.
runMain(() => main().then(() => process.exit(0)));
