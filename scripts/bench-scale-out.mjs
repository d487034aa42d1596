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
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { checkPositive, root, scaled, skipPart, spawnUntilReady, writeKeyFile } from './bench-support.mjs';

const require = createRequire(import.meta.url);
const { openStore } = require(path.join(root, 'dist/store'));
const { Client } = require('pg');

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const CALLS = scaled('BENCH_CALLS', 5_000, 40);
const CLIENTS = scaled('BENCH_CLIENTS', 32, 4);
const LATENCY_MS = scaled('BENCH_FCM_LATENCY_MS', 20, 5);
const KILL = process.env.BENCH_KILL !== '0';
const STUDENTS = scaled(null, 1000, 40);
const SCHOOL = 'https://bench.school.example';
const PROJECT = 'bench-project';

/** FCM answering after LATENCY_MS; one access token per token request, so per worker process. */
async function startFakeFcm() {
  const sends = [];
  let tokens = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/token') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ access_token: `worker-${++tokens}`, expires_in: 3600, token_type: 'Bearer' }));
        return;
      }
      const data = JSON.parse(Buffer.concat(chunks).toString('utf8')).message.data;
      const send = {
        id: data.notificationId,
        type: data.type,
        worker: req.headers.authorization,
        start: Date.now(),
        end: Infinity,
      };
      sends.push(send);
      setTimeout(() => {
        send.end = Date.now();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`{"name":"projects/${PROJECT}/messages/${sends.length}"}`);
      }, LATENCY_MS);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    sends,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const start = (script, env, readyPattern) => spawnUntilReady(script, { LOG_FORMAT: 'json', ...env }, readyPattern);

const startService = (env) => {
  const s = start(
    'dist/main.js',
    { ...env, PORT: '0', HOST: '127.0.0.1', WORKER: 'false', DEMO_DATA: 'false' },
    /"port":(\d+)/,
  );
  return { ...s, port: s.ready.then((match) => Number(match[1])) };
};
const startWorker = (env) => start('dist/cli/worker.js', env, /"msg":"worker running"/);

function call(agent, port, n) {
  const body = new URLSearchParams({
    id: String(100000 + (n % STUDENTS)),
    baseUrlSchool: SCHOOL,
    TypeNotfication: `bench-${n}`,
  }).toString();
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/NotificationNotes.asmx/SendNotificationType',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200));
        res.on('error', () => resolve(false));
      },
    );
    req.on('error', () => resolve(false));
    req.end(body);
  });
}

function overlaps(sends) {
  const byId = new Map();
  for (const send of sends) byId.set(send.id, [...(byId.get(send.id) ?? []), send]);
  let count = 0;
  for (const list of byId.values()) {
    list.sort((a, b) => a.start - b.start);
    for (let i = 1; i < list.length; i++) if (list[i].start < list[i - 1].end) count++;
  }
  return count;
}

async function main() {
  if (!DATABASE_URL) {
    skipPart('bench:scale-out', 'it needs PostgreSQL: set BENCH_DATABASE_URL or TEST_DATABASE_URL');
    return;
  }
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const separator = DATABASE_URL.includes('?') ? '&' : '?';
  const storeEnv = {
    DATABASE_URL: `${DATABASE_URL}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    DATA_DIR: os.tmpdir(),
  };
  const keyDir = mkdtempSync(path.join(os.tmpdir(), 'sns-bench-key-'));
  const fcm = await startFakeFcm();
  const children = [];
  try {
    const store = await openStore({ databaseUrl: DATABASE_URL, schema, dataDir: os.tmpdir() });
    const ids = Array.from({ length: STUDENTS }, (_, i) => String(100000 + i));
    await store.dataSet.writeDataSet({
      schools: [{ baseUrl: SCHOOL, name: 'Bench School' }],
      devices: ids.map((id) => ({ id: `dev-${id}`, token: `fcm-token-${id}`, platform: 'android' })),
      students: ids.map((id) => ({
        id,
        school: SCHOOL,
        fullName: `Student ${id}`,
        deviceId: `dev-${id}`,
        active: '1',
      })),
    });
    await store.lifecycle.close();

    const workerEnv = {
      ...storeEnv,
      PUSH_PROVIDER: 'fcm',
      FCM_CREDENTIALS: writeKeyFile(keyDir, `${fcm.url}/token`, PROJECT),
      FCM_BASE_URL: fcm.url,
      // A killed worker's messages are taken over when their lease ends.
      DELIVERY_LEASE_SECONDS: '5',
      DELIVERY_TIMEOUT_MS: '2000',
      DELIVERY_SAFETY_POLL_MS: '500',
      DELIVERY_POLL_MS: '200',
    };
    const services = [startService(storeEnv), startService(storeEnv)];
    const workers = [startWorker(workerEnv), startWorker(workerEnv)];
    children.push(...services.map((s) => s.child), ...workers.map((w) => w.child));
    const ports = await Promise.all(services.map((s) => s.port));
    await Promise.all(workers.map((w) => w.ready));

    const events = [];
    const restarts = [];
    const kill = {
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
    const acknowledged = new Set();
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        while (next < CALLS) {
          const n = next++;
          const live = ports.filter((port) => port !== null);
          if (await call(agent, live[(n + c) % live.length], n)) acknowledged.add(`bench-${n}`);
          if (KILL) kill[n]?.();
        }
      }),
    );
    const callsMs = Date.now() - started;
    agent.destroy();

    const deadline = Date.now() + 300_000;
    for (;;) {
      const delivered = new Set(fcm.sends.filter((s) => s.end !== Infinity).map((s) => s.type));
      if ([...acknowledged].every((type) => delivered.has(type))) break;
      if (Date.now() > deadline)
        throw new Error(
          `${[...acknowledged].filter((type) => !delivered.has(type)).length} acknowledged calls not delivered after 5 minutes`,
        );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const lastDelivery = Math.max(...fcm.sends.filter((s) => s.end !== Infinity).map((s) => s.end));
    await Promise.all(restarts);
    const unique = new Set(fcm.sends.map((s) => s.id)).size;
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
    console.log(`  repeats               ${fcm.sends.length - unique} (messages sent again after their worker died)`);
    console.log(`  sent by two at once   ${overlaps(fcm.sends)}`);
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await fcm.close();
    rmSync(keyDir, { recursive: true, force: true });
    const client = new Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
