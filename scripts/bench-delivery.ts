// npm run bench, delivery part: push notifications queued through
// SendNotificationType (HTTP POST binding) and delivered to fakes that behave
// like the real services (docs/delivery.md#benchmark):
// - FCM over TLS and HTTP/2, the tests' fake (test/delivery/support/fake-h2-server.ts:
//   a self-signed certificate made at start, which the service trusts through
//   NODE_EXTRA_CA_CERTS; verification stays on), announcing 100 streams per
//   session as Google does, answering after BENCH_FCM_LATENCY_MS (default 50)
//   with +-20 % jitter, and with BENCH_FCM_ERROR_RATE (default 0) of its
//   answers a 429 (Retry-After) or a 503; its OAuth token endpoint is the
//   tests' too (test/delivery/support/fake-fcm.ts);
// - an SMS gateway (HTTP/1.1) answering after BENCH_SMS_LATENCY_MS (200).
//
// Per store (SQLite always; PostgreSQL when BENCH_DATABASE_URL or
// TEST_DATABASE_URL is set), every setting of the service at its default:
// - ingestion: MESSAGES calls answered over HTTP POST with the worker off
//   (calls/s), done twice to make the two backlogs below;
// - drain: one `npm run worker` process sends a backlog of MESSAGES, with the
//   fake answering at once, then after BENCH_FCM_LATENCY_MS; their ratio;
// - live: the server with its in-process worker while clients send
//   BENCH_LIVE_MESSAGES calls at BENCH_LIVE_RATE (1,000) a second;
//   queue-to-delivery p50/p99 is what a parent waits;
// - ratio: issue 29's ingestion ratio, the service's CPU per
//   SendNotificationType call (worker off) over its CPU per GetTokenDevice
//   call, both served by the same process over the same binding and
//   connections, to each of the students in turn, back to back in
//   BENCH_RATIO_ROUNDS (5) alternating rounds of BENCH_RATIO_DURATION (3) s,
//   HTTP POST and SOAP 1.1; the median of the
//   rounds' ratios against the target of 2 (docs/benchmark.md#ingestion).
// The fake stamps each arrival; queue time is the row's created_at. All on
// one machine: read the figures as this machine's, on this day.
//
// After each drain, in the same run, scripts/bench-h2-client.ts measures a
// bare node:http2 client and the service's H2Pool sending FCM-sized POSTs to
// a fake in another process, like for like with that drain: as many streams
// in flight as the worker kept (the fake's mean of streams open), over as few
// sessions as hold them, to a server answering after the same latency.
// The worker's CPU per push over the bare client's CPU per message is the
// ratio the worker is held to (docs/delivery.md#cpu-per-push).
import { execFile, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fcmError, startFakeFcm, type FakeFcm } from '../test/delivery/support/fake-fcm';
import { FakeH2Server } from '../test/delivery/support/fake-h2-server';
import { sendNotification } from '../test/delivery/support/send-notification';
import { storeEnvironment } from '../test/delivery/support/worker-process';
import {
  checkFigure,
  checkAnswered,
  checkPositive,
  cpuMs,
  cpuPerCall,
  createLocation,
  DATABASE_URL,
  drainRate,
  fmt,
  machineTicks,
  median,
  openStore,
  pidOf,
  postgresCpuMs,
  postgresCpuSince,
  quantile,
  request,
  runLoad,
  runMain,
  scaled,
  skipPart,
  smokeHas,
  spawnUntilReady,
  stopChild,
  type StoreLocation,
  root,
  TS_HOOK,
  waitUntil,
} from './bench-support';
import type { DataSet } from '../src/store';

const MESSAGES = scaled('BENCH_MESSAGES', 10_000, 20);
const STUDENTS = scaled(null, 1000, 20);
const CLIENT_CONNECTIONS = scaled(null, 16, 4);
const LIVE_RATE = scaled('BENCH_LIVE_RATE', 1000, 1000);
const LIVE_MESSAGES = scaled('BENCH_LIVE_MESSAGES', 10_000, 20);
const FCM_LATENCY_MS = scaled('BENCH_FCM_LATENCY_MS', 50, 5);
const FCM_ERROR_RATE = scaled('BENCH_FCM_ERROR_RATE', 0, 0);
const SMS_LATENCY_MS = scaled('BENCH_SMS_LATENCY_MS', 200, 5);
const RATIO_ROUNDS = scaled('BENCH_RATIO_ROUNDS', 5, 1);
const RATIO_DURATION = scaled('BENCH_RATIO_DURATION', 3, 0.1);
/** Issue 29: ingestion CPU per call within this many times a GetTokenDevice call's. */
const INGESTION_RATIO_TARGET = 2;
// BENCH_STORES=postgres (or sqlite) and BENCH_CASES=drain (or live, ratio): one part
// only, to try a change quickly; the targets are read off a full run.
const ONLY_STORES = (process.env.BENCH_STORES ?? '').split(',').filter(Boolean);
const ONLY_CASES = (process.env.BENCH_CASES ?? '').split(',').filter(Boolean);
// BENCH_ENV='NAME=value,NAME=value': settings for the service and the worker
// on top of the defaults, to compare a tuning with them (not for the targets).
const EXTRA_ENV = Object.fromEntries(
  (process.env.BENCH_ENV ?? '')
    .split(',')
    .map((pair) => pair.trim())
    .filter((pair) => pair.includes('='))
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);
const SCHOOL = 'https://bench.school.example';
// What the fake announces (FakeH2Server's default), as Google does.
const FCM_STREAMS_PER_SESSION = 100;

/** The fake FCM's sends (HTTP/2) as the benchmark drives them: its latency, its refusals, when each notification arrived. */
interface BenchFcm {
  readonly h2: FakeH2Server;
  /** Notification id to when it was first accepted. */
  readonly arrivals: Map<string, number>;
  requests(): number;
  setLatency(ms: number): void;
  reset(): void;
}

/**
 * FCM's send endpoint (the tests' HTTP/2 fake) answering after `latencyMs`
 * (+-20 %), FCM_ERROR_RATE of its answers a 429 or a 503; records when each
 * notification was accepted.
 */
async function startBenchFcm(): Promise<BenchFcm> {
  const arrivals = new Map<string, number>();
  let requests = 0;
  let latencyMs = FCM_LATENCY_MS;
  const h2 = await FakeH2Server.start({ maxConcurrentStreams: FCM_STREAMS_PER_SESSION });
  h2.handle((request) => {
    // Nothing is read back from the fake's own record: keep it empty.
    h2.received.length = 0;
    const delay = latencyMs === 0 ? 0 : latencyMs * (0.8 + 0.4 * Math.random());
    const answer = () => {
      requests++;
      if (FCM_ERROR_RATE > 0 && Math.random() < FCM_ERROR_RATE)
        return Math.random() < 0.5
          ? fcmError(429, 'RESOURCE_EXHAUSTED', null, 'bench', { 'retry-after': '1' })
          : fcmError(503, 'UNAVAILABLE', null, 'bench', { 'retry-after': '1' });
      const id = (JSON.parse(request.body) as { message: { data: { notificationId: string } } }).message.data
        .notificationId;
      if (!arrivals.has(id)) arrivals.set(id, Date.now());
      return { status: 200, body: `{"name":"projects/bench/messages/${requests}"}` };
    };
    if (delay === 0) return answer();
    return new Promise((resolve) => setTimeout(() => resolve(answer()), delay));
  });
  return {
    h2,
    arrivals,
    requests: () => requests,
    setLatency(ms) {
      latencyMs = ms;
    },
    reset() {
      arrivals.clear();
      requests = 0;
    },
  };
}

/** An SMS gateway over plain HTTP/1.1 answering after SMS_LATENCY_MS. */
async function startFakeSmsGateway(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => setTimeout(() => res.end('{"status":"queued"}'), SMS_LATENCY_MS));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/send`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Options = StoreLocation['options'];

async function seed(options: Options): Promise<void> {
  const store = await openStore(options);
  const devices: NonNullable<DataSet['devices']>[number][] = [];
  const students: NonNullable<DataSet['students']>[number][] = [];
  for (let i = 0; i < STUDENTS; i++) {
    const id = String(100000 + i);
    devices.push({
      id: `dev-${id}`,
      token: `fcm-token-${id}-${'x'.repeat(120)}`,
      platform: i % 3 === 0 ? 'ios' : 'android',
    });
    students.push({
      id,
      school: SCHOOL,
      fullName: i % 2 === 0 ? `طالب رقم ${i}` : `Student ${i}`,
      deviceId: `dev-${id}`,
      active: '1',
      classId: `C${i % 30}`,
    });
  }
  await store.dataSet.writeDataSet({ schools: [{ baseUrl: SCHOOL, name: 'Bench School' }], devices, students });
  await store.lifecycle.close();
}

async function startChild(
  script: string,
  env: Record<string, string>,
  readyPattern: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray; readyAt: number }> {
  const { child, ready } = spawnUntilReady(script, { ...env, ...EXTRA_ENV }, readyPattern);
  const match = await ready;
  return { child, match, readyAt: Date.now() };
}

/**
 * `count` SendNotificationType calls over HTTP POST, CLIENT_CONNECTIONS at a
 * time, as fast as they are answered or, with `rate`, that many per second.
 */
async function queueThroughService(port: number, rate: number | null = null, count = MESSAGES): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENT_CONNECTIONS });
  const call = async (n: number): Promise<void> => {
    const status = await sendNotification(agent, port, {
      id: String(100000 + (n % STUDENTS)),
      baseUrlSchool: SCHOOL,
      TypeNotfication: ['absence', 'note', 'mark', 'exam'][n % 4],
    });
    if (status !== 200) throw new Error(`SendNotificationType answered ${status}`);
  };
  let next = 0;
  const started = Date.now();
  const paced = async (n: number): Promise<void> => {
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

const waitForArrivals = (fcm: BenchFcm, count = MESSAGES): Promise<void> =>
  waitUntil(
    () => fcm.arrivals.size >= count,
    () => `only ${fcm.arrivals.size} of ${count} notifications arrived`,
  );

/** Queue-to-delivery per notification, from the rows' created_at and the fake's stamps; checks every row is sent. */
async function latencies(options: Options, fcm: BenchFcm, count = MESSAGES): Promise<{ p50: number; p99: number }> {
  const store = await openStore(options);
  try {
    const rows = await store.admin.listPushNotifications();
    const unsent = rows.filter((row) => row.status !== 'sent').length;
    if (rows.length !== count || unsent > 0) throw new Error(`${rows.length} rows, ${unsent} not sent`);
    const values = rows
      .map((row) => (fcm.arrivals.get(row.id) ?? NaN) - Date.parse(row.createdAt))
      .sort((a, b) => a - b);
    return { p50: quantile(values, 0.5), p99: quantile(values, 0.99) };
  } finally {
    await store.lifecycle.close();
  }
}

interface Fakes {
  readonly fcm: BenchFcm;
  readonly tokens: FakeFcm;
  readonly sms: { url: string };
  readonly certFile: string;
  readonly keyFile: string;
}

function serviceEnv(location: StoreLocation, fakes: Fakes, worker: boolean): Record<string, string> {
  return {
    ...storeEnvironment(location),
    PORT: '0',
    HOST: '127.0.0.1',
    DEMO_DATA: 'false',
    WORKER: String(worker),
    PUSH_PROVIDER: 'fcm',
    FCM_CREDENTIALS: fakes.keyFile,
    FCM_BASE_URL: fakes.fcm.h2.origin,
    // The fake's certificate, trusted explicitly (verification stays on).
    NODE_EXTRA_CA_CERTS: fakes.certFile,
    SMS_PROVIDER: 'http',
    SMS_HTTP_URL: fakes.sms.url,
    LOG_LEVEL: 'warn',
  };
}

/**
 * CPU per message (µs) from now, the child process `child` being ready, until
 * the returned function is called: the child (a service or a worker, its
 * start-up left out, and with it whatever a worker sent before its ready line
 * was read: little of 10,000, most of a small backlog at 0 ms), this process
 * (`own`: the fakes or the clients),
 * PostgreSQL's server when the store is there; and how busy the machine's
 * cores were. Near 100 % busy, a rate waited for CPU.
 */
interface CpuCount {
  readonly cpu: Record<string, number | null>;
  readonly busy: number | null;
}

function startCpuCount(env: Record<string, string>, child: { name: string; pid: number }, own: string): () => CpuCount {
  const onPostgres = env.DATABASE_URL !== '';
  const childBefore = cpuMs(child.pid);
  const postgresBefore = onPostgres ? postgresCpuMs() : null;
  const ownBefore = process.cpuUsage();
  const machineBefore = machineTicks();
  return () => {
    const perMessage = (ms: number | null): number | null => (ms === null ? null : (ms * 1000) / MESSAGES);
    const childNow = cpuMs(child.pid);
    const ownUsage = process.cpuUsage(ownBefore);
    const machine = machineTicks();
    return {
      cpu: {
        [child.name]: perMessage(childBefore === null || childNow === null ? null : childNow - childBefore),
        [own]: perMessage((ownUsage.user + ownUsage.system) / 1000),
        postgres: postgresBefore === null ? null : perMessage(postgresCpuSince(postgresBefore)),
      },
      // No tick counted (a span shorter than one): unknown rather than NaN.
      busy:
        machineBefore === null || machine === null || machine.total === machineBefore.total
          ? null
          : (machine.busy - machineBefore.busy) / (machine.total - machineBefore.total),
    };
  };
}

async function ingest(env: Record<string, string>): Promise<CpuCount & { rate: number }> {
  const service = await startChild('dist/main.js', { ...env, LOG_LEVEL: 'info' }, /"port":(\d+)/);
  try {
    const count = startCpuCount(env, { name: 'service', pid: pidOf(service.child) }, 'clients');
    const ms = await queueThroughService(Number(service.match[1]));
    return { rate: (MESSAGES / ms) * 1000, ...count() };
  } finally {
    await stopChild(service.child);
  }
}

/** What the worker kept the provider busy with in a drain, for a bare client to do the same (bench-h2-client.ts). */
interface DrainShape {
  /** Mean streams open at the fake from the first request to the last answer. */
  readonly inFlight: number;
  /** Streams each HTTP/2 session of the worker carried, the busiest first. */
  readonly sessions: readonly number[];
  readonly latencyMs: number;
}

async function drainOnce(
  env: Record<string, string>,
  fcm: BenchFcm,
  latencyMs: number,
): Promise<CpuCount & { rate: number; requests: number; shape: DrainShape }> {
  fcm.reset();
  fcm.setLatency(latencyMs);
  fcm.h2.resetOccupancy();
  const worker = await startChild('dist/cli/worker.js', { ...env, LOG_LEVEL: 'info' }, /"msg":"worker running"/);
  const count = startCpuCount(env, { name: 'worker', pid: pidOf(worker.child) }, 'fakes');
  await waitForArrivals(fcm);
  const rate = drainRate(MESSAGES, worker.readyAt, fcm.arrivals.values());
  const { cpu, busy } = count();
  const shape = {
    inFlight: checkPositive('streams in flight during the drain', fcm.h2.meanStreamsInFlight()),
    sessions: fcm.h2.streamsBySession(),
    latencyMs,
  };
  await stopChild(worker.child);
  return { rate, requests: fcm.requests(), cpu, busy, shape };
}

/**
 * The bare HTTP/2 client's and H2Pool's CPU per message (µs, medians of 3
 * rounds), from scripts/bench-h2-client.ts, sending as the drain `shape` did:
 * its streams in flight, its sessions, its provider latency.
 */
interface ClientCpu {
  readonly bare: number;
  readonly pool: number;
}

function measureH2Clients(shape: DrainShape): Promise<ClientCpu> {
  const env = {
    ...process.env,
    BENCH_H2_JSON: '1',
    BENCH_H2_CLIENTS: 'bare,pool',
    BENCH_H2_MESSAGES: String(Math.max(1, Math.round(MESSAGES / 2))),
    BENCH_H2_ROUNDS: '3',
    BENCH_H2_CONCURRENCY: String(Math.max(1, Math.round(shape.inFlight))),
    // As few sessions as hold that many streams at the fake's limit (100, as
    // Google's), as a good client would: the worker's own spread over more
    // sessions is its cost, not the yardstick's (docs/delivery.md#cpu-per-push).
    BENCH_H2_SESSIONS: String(Math.max(1, Math.ceil(Math.round(shape.inFlight) / FCM_STREAMS_PER_SESSION))),
    BENCH_H2_LATENCY_MS: String(shape.latencyMs),
  };
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...TS_HOOK, path.join(root, 'scripts/bench-h2-client.ts')],
      { env, maxBuffer: 1 << 20 },
      (error, stdout) => {
        if (error) return reject(new Error(`scripts/bench-h2-client.ts failed: ${error.message}`));
        const line = stdout.trim().split('\n').pop() ?? '';
        const figures = JSON.parse(line) as ClientCpu;
        resolve({
          bare: checkPositive('bare HTTP/2 client: CPU µs per message', figures.bare),
          pool: checkPositive('H2Pool: CPU µs per message', figures.pool),
        });
      },
    );
  });
}

/** Ingestion twice (worker off), each backlog drained by one worker process: at 0 ms, then at FCM_LATENCY_MS. */
type Kind = 'sqlite' | 'postgres';

async function drainCase(kind: Kind, fakes: Fakes) {
  const location = createLocation(kind);
  try {
    await seed(location.options);
    const env = serviceEnv(location, fakes, false);
    const ingestion = [await ingest(env)];
    const atZero = await drainOnce(env, fakes.fcm, 0);
    const clients = [await measureH2Clients(atZero.shape)];
    ingestion.push(await ingest(env));
    const atLatency = await drainOnce(env, fakes.fcm, FCM_LATENCY_MS);
    clients.push(await measureH2Clients(atLatency.shape));
    const store = await openStore(location.options);
    try {
      const rows = await store.admin.listPushNotifications();
      const unsent = rows.filter((row) => row.status !== 'sent').length;
      if (rows.length !== 2 * MESSAGES || unsent > 0) throw new Error(`${rows.length} rows, ${unsent} not sent`);
    } finally {
      await store.lifecycle.close();
    }
    for (const run of ingestion) checkPositive(`${kind}: ingestion calls/s`, run.rate);
    checkPositive(`${kind}: drain/s at 0 ms`, atZero.rate);
    checkPositive(`${kind}: drain/s at ${FCM_LATENCY_MS} ms`, atLatency.rate);
    return { ingestion, atZero, atLatency, clients };
  } finally {
    await location.remove();
  }
}

async function liveCase(kind: Kind, fakes: Fakes): Promise<{ callRate: number; p50: number; p99: number }> {
  const location = createLocation(kind);
  try {
    await seed(location.options);
    fakes.fcm.reset();
    fakes.fcm.setLatency(FCM_LATENCY_MS);
    const service = await startChild(
      'dist/main.js',
      { ...serviceEnv(location, fakes, true), LOG_LEVEL: 'info' },
      /"port":(\d+)/,
    );
    const queueMs = await queueThroughService(Number(service.match[1]), LIVE_RATE, LIVE_MESSAGES);
    await waitForArrivals(fakes.fcm, LIVE_MESSAGES);
    await stopChild(service.child);
    const { p50, p99 } = await latencies(location.options, fakes.fcm, LIVE_MESSAGES);
    checkFigure(`${kind}: live p50 ms`, p50);
    checkFigure(`${kind}: live p99 ms`, p99);
    return { callRate: checkPositive(`${kind}: live calls/s`, (LIVE_MESSAGES / queueMs) * 1000), p50, p99 };
  } finally {
    await location.remove();
  }
}

/** One binding's figures of the ratio part: medians of the rounds. */
interface RatioRow {
  readonly binding: 'HTTP POST' | 'SOAP 1.1';
  readonly read: number;
  readonly send: number;
  /** The median of the rounds' own ratios: a round that met a busy moment weighs once. */
  readonly ratio: number;
}

/**
 * Ingestion CPU per call against GetTokenDevice's on one service process
 * (worker off), per binding: in each round the two calls back to back, their
 * order swapped every other round, CLIENT_CONNECTIONS connections each; the
 * service's CPU from /proc.
 */
async function ratioCase(kind: Kind, fakes: Fakes): Promise<RatioRow[]> {
  const location = createLocation(kind);
  try {
    await seed(location.options);
    const service = await startChild(
      'dist/main.js',
      { ...serviceEnv(location, fakes, false), LOG_LEVEL: 'info' },
      /"port":(\d+)/,
    );
    try {
      const port = Number(service.match[1]);
      const pid = pidOf(service.child);
      // Each call to a student of STUDENTS in turn, as a school's calls come: a push's entry in the
      // student index then lands on a leaf of its own (docs/benchmark.md#ingestion).
      let next = 0;
      const student = () => String(100000 + (next++ % STUDENTS));
      const bindings = ['HTTP POST', 'SOAP 1.1'] as const;
      const cases = bindings.map((binding) => {
        const read = (id: string) => request('PushNotificationMobile', 'GetTokenDevice', { id: `dev-${id}` }, binding);
        const send = (id: string) =>
          request(
            'NotificationNotes',
            'SendNotificationType',
            { id, baseUrlSchool: SCHOOL, TypeNotfication: 'absence' },
            binding,
          );
        return { binding, read, send, rounds: [] as Array<{ read: number; send: number }> };
      });
      const cpuPerCallOf = async (what: string, make: (id: string) => ReturnType<typeof request>): Promise<number> => {
        const before = cpuMs(pid);
        const vary = () => {
          const { path, body } = make(student());
          return { path, body };
        };
        const result = checkAnswered(
          what,
          await runLoad(port, make(student()), { connections: CLIENT_CONNECTIONS, duration: RATIO_DURATION, vary }),
        );
        // CPU is read in 10 ms ticks: a smoke load may count none.
        return checkFigure(`${what}: CPU µs/call`, cpuPerCall(pid, before, result.requests.total));
      };
      for (let round = 0; round < RATIO_ROUNDS; round++) {
        for (const c of cases) {
          const label = `${kind} ${c.binding}`;
          if (round % 2 === 0) {
            const read = await cpuPerCallOf(`${label} GetTokenDevice`, c.read);
            const send = await cpuPerCallOf(`${label} SendNotificationType`, c.send);
            c.rounds.push({ read, send });
          } else {
            const send = await cpuPerCallOf(`${label} SendNotificationType`, c.send);
            const read = await cpuPerCallOf(`${label} GetTokenDevice`, c.read);
            c.rounds.push({ read, send });
          }
        }
      }
      return cases.map((c) => ({
        binding: c.binding,
        read: median(c.rounds.map((r) => r.read)),
        send: median(c.rounds.map((r) => r.send)),
        ratio: median(c.rounds.filter((r) => r.read > 0).map((r) => r.send / r.read)),
      }));
    } finally {
      await stopChild(service.child);
    }
  } finally {
    await location.remove();
  }
}

const cpuCell = ({ cpu, busy }: CpuCount): string =>
  Object.entries(cpu)
    .flatMap(([name, value]) => (value === null ? [] : [`${name} ${fmt(value)}`]))
    .join(', ') + (busy === null ? '' : ` (machine ${Math.round(busy * 100)} % busy)`);

async function main(): Promise<void> {
  const stores = (DATABASE_URL === '' ? (['sqlite'] as const) : (['sqlite', 'postgres'] as const)).filter(
    (kind) => ONLY_STORES.length === 0 || ONLY_STORES.includes(kind),
  );
  const runs = (part: string): boolean => ONLY_CASES.length === 0 || ONLY_CASES.includes(part);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sns-bench-delivery-'));
  const fcm = await startBenchFcm();
  const tokens = await startFakeFcm();
  const sms = await startFakeSmsGateway();
  try {
    const certFile = path.join(dir, 'fcm-cert.pem');
    writeFileSync(certFile, fcm.h2.cert);
    const fakes: Fakes = { fcm, tokens, sms, certFile, keyFile: tokens.writeKeyFile(dir) };
    console.log(
      `\nDelivery, default settings: fake FCM over TLS + HTTP/2 answering after ${FCM_LATENCY_MS} ms +-20 %` +
        `${FCM_ERROR_RATE > 0 ? ` (${FCM_ERROR_RATE * 100} % 429/503)` : ''}, SMS gateway after ${SMS_LATENCY_MS} ms; ${fmt(MESSAGES)} pushes per drain`,
    );
    console.log(
      `| store | ingestion calls/s (HTTP POST, ${CLIENT_CONNECTIONS} connections) | drain/s at 0 ms | drain/s at ${FCM_LATENCY_MS} ms | ratio | live ${fmt(LIVE_RATE)} calls/s: achieved | p50 ms | p99 ms |`,
    );
    console.log('|---|---|---|---|---|---|---|---|');
    const cpuLines: string[] = [];
    const ratioRows: Array<RatioRow & { kind: Kind }> = [];
    for (const kind of stores) {
      const drain = runs('drain') ? await drainCase(kind, fakes) : null;
      const live = runs('live') ? await liveCase(kind, fakes) : null;
      if (runs('ratio')) for (const row of await ratioCase(kind, fakes)) ratioRows.push({ ...row, kind });
      const cells = [
        ...(drain === null
          ? ['-', '-', '-', '-']
          : [
              drain.ingestion.map((run) => fmt(run.rate)).join(', '),
              fmt(drain.atZero.rate),
              fmt(drain.atLatency.rate),
              (drain.atLatency.rate / drain.atZero.rate).toFixed(2),
            ]),
        ...(live === null ? ['-', '-', '-'] : [fmt(live.callRate), fmt(live.p50), fmt(live.p99)]),
      ];
      console.log(`| ${kind} | ${cells.join(' | ')} |`);
      if (drain !== null) {
        cpuLines.push(`${kind}, ingestion: ${drain.ingestion.map(cpuCell).join('; ')}`);
        cpuLines.push(
          `${kind}, drain: ${cpuCell(drain.atZero)} at 0 ms; ${cpuCell(drain.atLatency)} at ${FCM_LATENCY_MS} ms`,
        );
        const [afterZero, afterLatency] = drain.clients;
        const ratio = (run: CpuCount, client: ClientCpu): string => {
          const worker = run.cpu.worker;
          return worker === null ? '-' : (worker / client.bare).toFixed(2);
        };
        const shape = ({ shape: { inFlight, sessions } }: { shape: DrainShape }): string =>
          `${inFlight.toFixed(1)} streams in flight (its sessions carried ${sessions.map((n) => fmt(n)).join(', ')})`;
        cpuLines.push(
          `${kind}, the drains kept ${shape(drain.atZero)} at 0 ms, ${shape(drain.atLatency)} at ${FCM_LATENCY_MS} ms; ` +
            `HTTP/2 clients after each drain, sending the same: bare node:http2 ${fmt(afterZero.bare)}, ${fmt(afterLatency.bare)}; H2Pool ${fmt(afterZero.pool)}, ${fmt(afterLatency.pool)}; ` +
            `worker / bare client: ${ratio(drain.atZero, afterZero)} at 0 ms, ${ratio(drain.atLatency, afterLatency)} at ${FCM_LATENCY_MS} ms`,
        );
      }
    }
    if (cpuLines.length > 0)
      console.log(
        `CPU per message (µs, from the process's ready line):\n${cpuLines.map((line) => `- ${line}`).join('\n')}`,
      );
    if (ratioRows.length > 0) {
      console.log(
        `\nIngestion against GetTokenDevice: the service's CPU per call (µs), worker off, one process, ${CLIENT_CONNECTIONS} connections, ` +
          `${fmt(STUDENTS)} students in turn, ${RATIO_ROUNDS} alternating rounds of ${RATIO_DURATION} s, medians; target SendNotificationType <= ${INGESTION_RATIO_TARGET} x GetTokenDevice`,
      );
      console.log('| store | binding | GetTokenDevice | SendNotificationType | ratio (median of the rounds) | met |');
      console.log('|---|---|---|---|---|---|');
      for (const row of ratioRows) {
        // A smoke load may count no CPU tick: no ratio then rather than NaN.
        const known = Number.isFinite(row.ratio);
        console.log(
          `| ${row.kind} | ${row.binding} | ${fmt(row.read)} | ${fmt(row.send)} | ${known ? row.ratio.toFixed(2) : '-'} | ${known ? (row.ratio <= INGESTION_RATIO_TARGET ? 'yes' : 'no') : '-'} |`,
        );
      }
    }
    if (DATABASE_URL === '') skipPart('PostgreSQL', 'set BENCH_DATABASE_URL or TEST_DATABASE_URL');
    console.log(
      `Targets: worker CPU per push <= 1.5 x the bare HTTP/2 client's per message; drain at ${FCM_LATENCY_MS} ms >= 0.9 x drain at 0 ms; one worker on PostgreSQL >= 5,000/s at ${FCM_LATENCY_MS} ms; live p50 <= 100 ms; ingestion on PostgreSQL >= 3,000/s; ingestion CPU per call <= ${INGESTION_RATIO_TARGET} x GetTokenDevice's.`,
    );
  } finally {
    await fcm.h2.close();
    await tokens.server.close();
    await sms.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// The fake FCM's certificate is made with openssl.
if (smokeHas('openssl', 'bench-delivery.ts')) runMain(main);
