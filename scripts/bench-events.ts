// npm run bench, delivery events part (docs/benchmark.md#delivery-events):
// what delivery events cost the push drain. One `npm run worker` process
// drains a backlog of MESSAGES pushes through a fake push gateway (the
// webhook provider, HTTP/1.1, answering after BENCH_PROVIDER_LATENCY_MS),
// first with no school subscribed to events, then with every school
// subscribed to a fake receiver that checks every signature with the
// `standardwebhooks` package (the receivers' own library) and answers after
// BENCH_RECEIVER_LATENCY_MS. Per store (SQLite always; PostgreSQL when
// BENCH_DATABASE_URL or TEST_DATABASE_URL is set):
// - the drain rate with events off and on, and their ratio (target >= 0.8);
// - the event latency: from the push reaching the gateway to its
//   `notification.sent` event reaching the receiver, p50 and p99;
// - that every event arrived, signed right, once after dropping repeats by
//   webhook-id, and in order per message.
// All on one machine: read the figures as this machine's, on this day.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { checkFigure, checkPositive, root, scaled, skipPart, spawnUntilReady } from './bench-support.mjs';

const require = createRequire(import.meta.url);
const { openStore } = require(path.join(root, 'dist/store'));
const { Webhook } = require('standardwebhooks');
const { Client } = require('pg');

const MESSAGES = scaled('BENCH_MESSAGES', 10_000, 20);
const SCHOOLS = scaled('BENCH_SCHOOLS', 20, 2);
const STUDENTS = scaled(null, 1000, 10);
const PROVIDER_LATENCY_MS = scaled('BENCH_PROVIDER_LATENCY_MS', 50, 5);
const RECEIVER_LATENCY_MS = scaled('BENCH_RECEIVER_LATENCY_MS', 20, 5);
const ONLY_STORES = (process.env.BENCH_STORES ?? '').split(',').filter(Boolean);
// Each kind of event a push that is sent at the first attempt gets: queued, then sent.
const EVENTS_PER_PUSH = 2;

const schoolOf = (n) => `https://bench-${n % SCHOOLS}.school.example`;

/** Answers `handle(body, headers)`'s status after `latencyMs`; stamps nothing itself. */
async function listen(latencyMs, handle) {
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const status = handle(Buffer.concat(chunks).toString('utf8'), req.headers);
      const answer = () => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end('{}');
      };
      if (latencyMs === 0) answer();
      else setTimeout(answer, latencyMs * (0.8 + 0.4 * Math.random()));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

/** The push gateway: when each notification first arrived. */
async function startGateway() {
  const arrivals = new Map();
  const server = await listen(PROVIDER_LATENCY_MS, (body) => {
    const { id } = JSON.parse(body);
    if (!arrivals.has(id)) arrivals.set(id, Date.now());
    return 200;
  });
  return { ...server, arrivals };
}

/**
 * The schools' receiver: checks each delivery's signature with its school's
 * secret (standardwebhooks), drops repeats by webhook-id, and keeps each
 * message's event types in arrival order and when its `notification.sent` came.
 */
async function startReceiver(secrets) {
  const seen = new Set();
  const byMessage = new Map();
  const sentAt = new Map();
  const hooks = new Map([...secrets].map(([school, secret]) => [school, new Webhook(secret)]));
  // The body's school is checked against the key the signature was checked with.
  let bad = 0;
  let repeats = 0;
  let firstAt = Infinity;
  let lastAt = 0;
  const server = await listen(RECEIVER_LATENCY_MS, (body, headers) => {
    let event;
    try {
      const school = JSON.parse(body).data.school;
      event = hooks.get(school).verify(body, headers);
    } catch {
      bad++;
      return 400;
    }
    const id = headers['webhook-id'];
    if (seen.has(id)) {
      repeats++;
      return 200;
    }
    seen.add(id);
    lastAt = Date.now();
    firstAt = Math.min(firstAt, lastAt);
    const message = event.data.notificationId;
    byMessage.set(message, [...(byMessage.get(message) ?? []), event.type]);
    if (event.type === 'notification.sent') sentAt.set(message, lastAt);
    return 200;
  });
  return {
    ...server,
    count: () => seen.size,
    bad: () => bad,
    repeats: () => repeats,
    firstAt: () => firstAt,
    lastAt: () => lastAt,
    byMessage,
    sentAt,
  };
}

/** A fresh store: a new SQLite folder, or a new PostgreSQL schema; `env` points a worker at it. */
async function freshStore(kind, databaseUrl) {
  if (kind === 'sqlite') {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-bench-events-'));
    return {
      options: { dataDir },
      env: { DATA_DIR: dataDir, DATABASE_URL: '' },
      remove: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const schema = `bench_events_${randomBytes(5).toString('hex')}`;
  const joiner = databaseUrl.includes('?') ? '&' : '?';
  const searchPath = encodeURIComponent(`-c search_path=${schema}`);
  return {
    options: { databaseUrl, schema, dataDir: os.tmpdir() },
    env: { DATABASE_URL: `${databaseUrl}${joiner}options=${searchPath}`, DATA_DIR: os.tmpdir() },
    remove: async () => {
      const client = new Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
}

/** SCHOOLS schools, STUDENTS students (one device each) spread over them. */
async function seed(store) {
  const schools = Array.from({ length: SCHOOLS }, (_, n) => ({ baseUrl: schoolOf(n), name: `Bench ${n}` }));
  const devices = [];
  const students = [];
  for (let i = 0; i < STUDENTS; i++) {
    const id = String(500000 + i);
    devices.push({ id: `dev-${id}`, token: `token-${id}-${'x'.repeat(100)}`, platform: 'android' });
    students.push({ id, school: schoolOf(i), fullName: `Student ${i}`, deviceId: `dev-${id}`, active: '1' });
  }
  await store.dataSet.writeDataSet({ schools, devices, students });
}

/** MESSAGES pushes queued straight into the outbox (with their queued events when the schools subscribe). */
async function queueBacklog(store) {
  let next = 0;
  const ids = [];
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < MESSAGES) {
        const n = next++;
        const id = String(500000 + (n % STUDENTS));
        ids.push(
          await store.outbox.enqueuePushNotification({
            deviceId: `dev-${id}`,
            studentId: id,
            type: 'absence',
            title: 'Absence',
            body: `Message ${n}`,
            data: {},
          }),
        );
      }
    }),
  );
  return ids;
}

async function waitFor(what, done, timeoutMs = 300_000) {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what} not done within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** One worker drains the backlog `ids`; with `receiver`, until every event arrived too. */
async function drain(env, gateway, ids, receiver) {
  gateway.arrivals.clear();
  const { child, ready } = spawnUntilReady('dist/cli/worker.js', env, /"msg":"worker running"/);
  await ready;
  const readyAt = Date.now();
  try {
    await waitFor('the pushes', () => gateway.arrivals.size >= ids.length);
    const arrivals = [...gateway.arrivals.values()];
    const drainMs = Math.max(1, Math.max(...arrivals) - Math.min(readyAt, ...arrivals));
    if (receiver === null) return { rate: (ids.length / drainMs) * 1000 };
    await waitFor('the events', () => receiver.count() >= ids.length * EVENTS_PER_PUSH);
    const latencies = ids.map((id) => receiver.sentAt.get(id) - gateway.arrivals.get(id)).sort((a, b) => a - b);
    return {
      rate: (ids.length / drainMs) * 1000,
      eventRate:
        ((ids.length * EVENTS_PER_PUSH) / Math.max(1, receiver.lastAt() - Math.min(readyAt, receiver.firstAt()))) *
        1000,
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
    };
  } finally {
    await stop(child);
  }
}

/** Every event once, signed right, queued before sent for each message. */
function checkEvents(kind, receiver, ids) {
  if (receiver.bad() > 0) throw new Error(`${kind}: ${receiver.bad()} events failed the signature check`);
  const wrong = ids.filter((id) => receiver.byMessage.get(id)?.join() !== 'notification.queued,notification.sent');
  if (wrong.length > 0)
    throw new Error(
      `${kind}: ${wrong.length} messages' events not queued then sent: ${receiver.byMessage.get(wrong[0])}`,
    );
}

async function storeCase(kind, databaseUrl, gateway) {
  const location = await freshStore(kind, databaseUrl);
  const store = await openStore(location.options);
  let receiver = null;
  try {
    await seed(store);
    const env = {
      ...location.env,
      DEMO_DATA: 'false',
      PUSH_PROVIDER: 'webhook',
      PUSH_WEBHOOK_URL: gateway.url,
      EVENTS_ALLOW_HTTP: 'true',
      LOG_LEVEL: 'info',
    };
    const off = await drain(env, gateway, await queueBacklog(store), null);
    // Every school subscribes, each with a secret of its own, which its system (the receiver) holds.
    const secrets = new Map(
      Array.from({ length: SCHOOLS }, (_, n) => [schoolOf(n), `whsec_${randomBytes(32).toString('base64')}`]),
    );
    receiver = await startReceiver(secrets);
    for (const [school, secret] of secrets)
      if ((await store.admin.putEventSubscription(school, { url: `${receiver.url}/events`, secret })) === null)
        throw new Error(`no school ${school}`);
    const ids = await queueBacklog(store);
    const on = await drain(env, gateway, ids, receiver);
    checkEvents(kind, receiver, ids);
    const ratio = on.rate / off.rate;
    checkPositive(`${kind}: drain/s, events off`, off.rate);
    checkPositive(`${kind}: drain/s, events on`, on.rate);
    checkFigure(`${kind}: event p50 ms`, on.p50);
    checkFigure(`${kind}: event p99 ms`, on.p99);
    return { off, on, ratio, repeats: receiver.repeats() };
  } finally {
    await receiver?.close();
    await store.lifecycle.close();
    await location.remove();
  }
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');

async function main() {
  const databaseUrl = process.env.BENCH_DATABASE_URL?.trim() || process.env.TEST_DATABASE_URL?.trim() || '';
  const stores = (databaseUrl === '' ? ['sqlite'] : ['sqlite', 'postgres']).filter(
    (kind) => ONLY_STORES.length === 0 || ONLY_STORES.includes(kind),
  );
  const gateway = await startGateway();
  try {
    console.log(
      `\nDelivery events: ${fmt(MESSAGES)} pushes drained by one worker through a push gateway answering after ${PROVIDER_LATENCY_MS} ms +-20 %, ` +
        `${SCHOOLS} schools, events off then on for every school (a receiver checking every signature, answering after ${RECEIVER_LATENCY_MS} ms +-20 %)`,
    );
    console.log(
      '| store | drain/s, events off | drain/s, events on | ratio | events/s | event latency p50 ms | p99 ms |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const kind of stores) {
      const { off, on, ratio, repeats } = await storeCase(kind, databaseUrl, gateway);
      console.log(
        `| ${kind} | ${fmt(off.rate)} | ${fmt(on.rate)} | ${ratio.toFixed(2)} | ${fmt(on.eventRate)} | ${fmt(on.p50)} | ${fmt(on.p99)} |`,
      );
      if (repeats > 0) console.log(`${kind}: ${repeats} events arrived twice (dropped by webhook-id)`);
    }
    if (databaseUrl === '') skipPart('PostgreSQL', 'set BENCH_DATABASE_URL or TEST_DATABASE_URL');
    console.log('Target: drain with events on >= 0.8 x drain with events off.');
  } finally {
    await gateway.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
