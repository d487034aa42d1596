// npm run bench, delivery part: 10,000 push notifications queued through
// SendNotificationType (HTTP POST binding) and delivered to a fake FCM on
// loopback that answers at once.
//
// Two cases per store (SQLite always; PostgreSQL when BENCH_DATABASE_URL or
// TEST_DATABASE_URL is set):
// - drain: the 10,000 are queued with WORKER=false, then one `npm run worker`
//   process drains them. Notifications per second is the worker's rate (the
//   target: at least 1,000/s on SQLite); queue-to-delivery includes the wait
//   in the backlog, so it mostly says how long the backlog took.
// - live: the server with its in-process worker (the default) while clients
//   send 5,000 calls at a steady 250 a second, well below what the server
//   takes in on this machine (about 750/s on PostgreSQL with the worker off);
//   queue-to-delivery is then the latency a parent sees.
// The fake FCM runs in this process and stamps each arrival; queue time is
// the row's created_at. Everything runs on one machine: read the figures as
// this machine's, on this day.
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { openStore } = require(path.join(root, 'dist/store'));
const { Client } = require('pg');

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 10_000);
const STUDENTS = 1000;
const CLIENT_CONNECTIONS = 16;
const LIVE_RATE = Number(process.env.BENCH_LIVE_RATE ?? 250);
const LIVE_MESSAGES = Number(process.env.BENCH_LIVE_MESSAGES ?? 5_000);
const SCHOOL = 'https://bench.school.example';
const PROJECT = 'bench-project';

/** FCM and its token endpoint, answering at once; records when each notification arrived. */
async function startFakeFcm() {
  const arrivals = new Map();
  let requests = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/token') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ access_token: 'bench-token', expires_in: 3600, token_type: 'Bearer' }));
        return;
      }
      requests++;
      const id = JSON.parse(Buffer.concat(chunks).toString('utf8')).message.data.notificationId;
      if (!arrivals.has(id)) arrivals.set(id, Date.now());
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"name":"projects/${PROJECT}/messages/${requests}"}`);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    arrivals,
    requests: () => requests,
    reset() {
      arrivals.clear();
      requests = 0;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

function writeKeyFile(dir, tokenUri) {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const file = path.join(dir, 'service-account.json');
  writeFileSync(
    file,
    JSON.stringify({
      type: 'service_account',
      project_id: PROJECT,
      client_email: 'bench@bench.iam.example',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      token_uri: tokenUri,
    }),
  );
  return file;
}

/** A fresh store: a new SQLite folder, or a new PostgreSQL schema. */
async function createLocation(kind, databaseUrl) {
  if (kind === 'sqlite') {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-bench-delivery-'));
    return {
      options: { dataDir },
      env: { DATA_DIR: dataDir, DATABASE_URL: '' },
      remove: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const separator = databaseUrl.includes('?') ? '&' : '?';
  return {
    options: { databaseUrl, schema, dataDir: os.tmpdir() },
    env: { DATABASE_URL: `${databaseUrl}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`, DATA_DIR: os.tmpdir() },
    remove: async () => {
      const client = new Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
}

async function seed(options) {
  const store = await openStore(options);
  const devices = [];
  const students = [];
  for (let i = 0; i < STUDENTS; i++) {
    const id = String(100000 + i);
    devices.push({ id: `dev-${id}`, token: `fcm-token-${id}-${'x'.repeat(120)}`, platform: i % 3 === 0 ? 'ios' : 'android' });
    students.push({ id, school: SCHOOL, fullName: i % 2 === 0 ? `طالب رقم ${i}` : `Student ${i}`, deviceId: `dev-${id}`, active: '1', classId: `C${i % 30}` });
  }
  await store.writeDataSet({ schools: [{ baseUrl: SCHOOL, name: 'Bench School' }], devices, students });
  await store.close();
}

function startChild(script, env, readyPattern) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, script)], {
      env: { PATH: process.env.PATH, LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    const onData = (chunk) => {
      out += chunk;
      const match = readyPattern.exec(out);
      if (match) {
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve({ child, match, readyAt: Date.now() });
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready:\n${out}`)));
  });
}

function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * MESSAGES SendNotificationType calls over HTTP POST, CLIENT_CONNECTIONS at a
 * time, as fast as they are answered or, with `rate`, that many per second.
 */
async function queueThroughService(port, rate = null, count = MESSAGES) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENT_CONNECTIONS });
  const call = (n) =>
    new Promise((resolve, reject) => {
      const body = new URLSearchParams({ id: String(100000 + (n % STUDENTS)), baseUrlSchool: SCHOOL, TypeNotfication: ['absence', 'note', 'mark', 'exam'][n % 4] }).toString();
      const req = http.request(
        { host: '127.0.0.1', port, path: '/NotificationNotes.asmx/SendNotificationType', method: 'POST', agent, headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`SendNotificationType answered ${res.statusCode}`))));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  let next = 0;
  const started = Date.now();
  const paced = async (n) => {
    if (rate === null) return;
    const due = started + (n * 1000) / rate;
    if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
  };
  await Promise.all(
    Array.from({ length: CLIENT_CONNECTIONS }, async () => {
      while (next < count) {
        const n = next++;
        await paced(n);
        await call(n);
      }
    }),
  );
  agent.destroy();
  return Date.now() - started;
}

async function waitForArrivals(fcm, count = MESSAGES, timeoutMs = 300_000) {
  const deadline = Date.now() + timeoutMs;
  while (fcm.arrivals.size < count) {
    if (Date.now() > deadline) throw new Error(`only ${fcm.arrivals.size} of ${count} notifications arrived`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Queue-to-delivery per notification, from the rows' created_at and the fake's stamps; checks every row is sent. */
async function latencies(options, fcm, count = MESSAGES) {
  const store = await openStore(options);
  try {
    const rows = await store.listPushNotifications();
    const unsent = rows.filter((row) => row.status !== 'sent').length;
    if (rows.length !== count || unsent > 0) throw new Error(`${rows.length} rows, ${unsent} not sent`);
    const values = rows.map((row) => fcm.arrivals.get(row.id) - Date.parse(row.createdAt)).sort((a, b) => a - b);
    const at = (q) => values[Math.min(values.length - 1, Math.floor(q * values.length))];
    return { p50: at(0.5), p99: at(0.99) };
  } finally {
    await store.close();
  }
}

function serviceEnv(location, fcm, keyFile, worker) {
  return {
    ...location.env,
    PORT: '0',
    HOST: '127.0.0.1',
    DEMO_DATA: 'false',
    WORKER: String(worker),
    PUSH_PROVIDER: 'fcm',
    FCM_CREDENTIALS: keyFile,
    FCM_BASE_URL: fcm.url,
    LOG_LEVEL: 'warn',
    ...(process.env.DELIVERY_POLL_MS ? { DELIVERY_POLL_MS: process.env.DELIVERY_POLL_MS } : {}),
  };
}

async function drainCase(kind, databaseUrl, fcm, keyFile) {
  const location = await createLocation(kind, databaseUrl);
  try {
    await seed(location.options);
    const env = serviceEnv(location, fcm, keyFile, false);
    const service = await startChild('dist/main.js', { ...env, LOG_LEVEL: 'info' }, /"port":(\d+)/);
    const queueMs = await queueThroughService(Number(service.match[1]));
    await stopChild(service.child);

    fcm.reset();
    const worker = await startChild('dist/cli/worker.js', { ...env, LOG_LEVEL: 'info' }, /"msg":"worker running"/);
    await waitForArrivals(fcm);
    const drainMs = Math.max(...fcm.arrivals.values()) - worker.readyAt;
    await stopChild(worker.child);
    const { p50, p99 } = await latencies(location.options, fcm);
    return { queueMs, drainMs, requests: fcm.requests(), p50, p99 };
  } finally {
    await location.remove();
  }
}

async function liveCase(kind, databaseUrl, fcm, keyFile) {
  const location = await createLocation(kind, databaseUrl);
  try {
    await seed(location.options);
    fcm.reset();
    const service = await startChild('dist/main.js', { ...serviceEnv(location, fcm, keyFile, true), LOG_LEVEL: 'info' }, /"port":(\d+)/);
    const started = Date.now();
    const queueMs = await queueThroughService(Number(service.match[1]), LIVE_RATE, LIVE_MESSAGES);
    await waitForArrivals(fcm, LIVE_MESSAGES);
    const totalMs = Math.max(...fcm.arrivals.values()) - started;
    await stopChild(service.child);
    const { p50, p99 } = await latencies(location.options, fcm, LIVE_MESSAGES);
    return { queueMs, totalMs, requests: fcm.requests(), p50, p99 };
  } finally {
    await location.remove();
  }
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');

async function main() {
  const databaseUrl = process.env.BENCH_DATABASE_URL?.trim() || process.env.TEST_DATABASE_URL?.trim() || '';
  const stores = databaseUrl === '' ? ['sqlite'] : ['sqlite', 'postgres'];
  const fcm = await startFakeFcm();
  const keyDir = mkdtempSync(path.join(os.tmpdir(), 'sns-bench-key-'));
  try {
    const keyFile = writeKeyFile(keyDir, `${fcm.url}/token`);
    console.log(`\nDelivery: push notifications through SendNotificationType (HTTP POST, ${CLIENT_CONNECTIONS} connections), fake FCM on loopback answering at once`);
    console.log('| store | case | queued in s | delivered notifications/s | queue-to-delivery p50 ms | p99 ms | FCM requests |');
    console.log('|---|---|---|---|---|---|---|');
    for (const kind of stores) {
      const drain = await drainCase(kind, databaseUrl, fcm, keyFile);
      console.log(`| ${kind} | drain: one worker process, backlog of ${fmt(MESSAGES)} | ${(drain.queueMs / 1000).toFixed(1)} | ${fmt((MESSAGES / drain.drainMs) * 1000)} | ${fmt(drain.p50)} | ${fmt(drain.p99)} | ${fmt(drain.requests)} |`);
      const live = await liveCase(kind, databaseUrl, fcm, keyFile);
      console.log(`| ${kind} | live: ${fmt(LIVE_MESSAGES)} at ${fmt(LIVE_RATE)} calls/s, server with its in-process worker | ${(live.queueMs / 1000).toFixed(1)} | ${fmt((LIVE_MESSAGES / live.totalMs) * 1000)} | ${fmt(live.p50)} | ${fmt(live.p99)} | ${fmt(live.requests)} |`);
    }
    if (databaseUrl === '') console.log('(PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL)');
    console.log('Target: drain on SQLite at least 1,000 notifications/s.');
  } finally {
    await fcm.close();
    rmSync(keyDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
