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
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { storeEnvironment } from '../test/delivery/support/worker-process';
import {
  checkFigure,
  checkPositive,
  cpuMs,
  cpuPerCall,
  createLocation,
  DATABASE_URL,
  drainRate,
  fmt,
  openStore,
  quantile,
  runMain,
  scaled,
  skipPart,
  spawnUntilReady,
  stopChild,
  type Store,
  waitUntil,
} from './bench-support';
import type { DataSet } from '../src/store';

const MESSAGES = scaled('BENCH_MESSAGES', 10_000, 20);
const SCHOOLS = scaled('BENCH_SCHOOLS', 20, 2);
const STUDENTS = scaled(null, 1000, 10);
const PROVIDER_LATENCY_MS = scaled('BENCH_PROVIDER_LATENCY_MS', 50, 5);
const RECEIVER_LATENCY_MS = scaled('BENCH_RECEIVER_LATENCY_MS', 20, 5);
const ONLY_STORES = (process.env.BENCH_STORES ?? '').split(',').filter(Boolean);
// A folder for the worker's V8 CPU profiles (one a drain; scripts/cpu-profile-summary.ts sums one), or unset.
const PROFILE_DIR = process.env.BENCH_CPU_PROF_DIR?.trim() ?? '';
// Each kind of event a push that is sent at the first attempt gets: queued, then sent.
const EVENTS_PER_PUSH = 2;

type Kind = 'sqlite' | 'postgres';

const schoolOf = (n: number): string => `https://bench-${n % SCHOOLS}.school.example`;

interface Listener {
  readonly url: string;
  close(): Promise<void>;
}

/** Answers `handle(body, headers)`'s status after `latencyMs` (+-20 %); stamps nothing itself. */
async function listen(
  latencyMs: number,
  handle: (body: string, headers: http.IncomingHttpHeaders) => number,
): Promise<Listener> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const status = handle(Buffer.concat(chunks).toString('utf8'), req.headers);
      const answer = (): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end('{}');
      };
      if (latencyMs === 0) answer();
      else setTimeout(answer, latencyMs * (0.8 + 0.4 * Math.random()));
    });
  });
  // Longer than Node's 5 s default: the worker's connections stay open through a pause, as to a real gateway.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The push gateway, with when each notification first arrived. */
interface Gateway extends Listener {
  readonly arrivals: Map<string, number>;
}

async function startGateway(): Promise<Gateway> {
  const arrivals = new Map<string, number>();
  const server = await listen(PROVIDER_LATENCY_MS, (body) => {
    const { id } = JSON.parse(body) as { id: string };
    if (!arrivals.has(id)) arrivals.set(id, Date.now());
    return 200;
  });
  return { ...server, arrivals };
}

/** What the schools' receiver saw. */
interface Receiver extends Listener {
  /** Events accepted, repeats dropped. */
  count(): number;
  /** Deliveries whose signature failed. */
  bad(): number;
  /** Deliveries dropped as repeats of a webhook-id. */
  repeats(): number;
  firstAt(): number;
  lastAt(): number;
  /** Message id to its event types in arrival order. */
  readonly byMessage: Map<string, string[]>;
  /** Message id to when its `notification.sent` arrived. */
  readonly sentAt: Map<string, number>;
}

interface DeliveryEvent {
  readonly type: string;
  readonly data: { readonly notificationId: string };
}

/**
 * The schools' receiver: checks each delivery's signature with its school's
 * secret (standardwebhooks), drops repeats by webhook-id, and keeps each
 * message's event types in arrival order and when its `notification.sent` came.
 */
async function startReceiver(secrets: ReadonlyMap<string, string>): Promise<Receiver> {
  const seen = new Set<string>();
  const byMessage = new Map<string, string[]>();
  const sentAt = new Map<string, number>();
  const hooks = new Map([...secrets].map(([school, secret]) => [school, new Webhook(secret)]));
  // The body's school is checked against the key the signature was checked with.
  let bad = 0;
  let repeats = 0;
  let firstAt = Infinity;
  let lastAt = 0;
  const server = await listen(RECEIVER_LATENCY_MS, (body, headers) => {
    let event: DeliveryEvent;
    try {
      const { school } = (JSON.parse(body) as { data: { school: string } }).data;
      const hook = hooks.get(school);
      if (hook === undefined) throw new Error('no such school');
      event = hook.verify(body, headers as Record<string, string>) as DeliveryEvent;
    } catch {
      bad++;
      return 400;
    }
    const id = String(headers['webhook-id']);
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

/** SCHOOLS schools, STUDENTS students (one device each) spread over them. */
async function seed(store: Store): Promise<void> {
  const schools = Array.from({ length: SCHOOLS }, (_, n) => ({ baseUrl: schoolOf(n), name: `Bench ${n}` }));
  const devices: NonNullable<DataSet['devices']>[number][] = [];
  const students: NonNullable<DataSet['students']>[number][] = [];
  for (let i = 0; i < STUDENTS; i++) {
    const id = String(500000 + i);
    devices.push({ id: `dev-${id}`, token: `token-${id}-${'x'.repeat(100)}`, platform: 'android' });
    students.push({ id, school: schoolOf(i), fullName: `Student ${i}`, deviceId: `dev-${id}`, active: '1' });
  }
  await store.dataSet.writeDataSet({ schools, devices, students });
}

/** MESSAGES pushes queued straight into the outbox (with their queued events when the schools subscribe). */
async function queueBacklog(store: Store): Promise<string[]> {
  let next = 0;
  const ids: string[] = [];
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

interface Drain {
  readonly rate: number;
  /** The worker's CPU (user + system) from its ready line to the last push, µs a push; null without /proc. */
  readonly cpuPerPush: number | null;
}

interface DrainWithEvents extends Drain {
  readonly eventRate: number;
  readonly p50: number;
  readonly p99: number;
}

/** One worker drains the backlog `ids`; with `receiver`, until every event arrived too. */
async function drain(env: Record<string, string>, gateway: Gateway, ids: readonly string[]): Promise<Drain>;
async function drain(
  env: Record<string, string>,
  gateway: Gateway,
  ids: readonly string[],
  receiver: Receiver,
): Promise<DrainWithEvents>;
async function drain(
  env: Record<string, string>,
  gateway: Gateway,
  ids: readonly string[],
  receiver?: Receiver,
): Promise<Drain | DrainWithEvents> {
  gateway.arrivals.clear();
  const { child, ready } = spawnUntilReady('dist/cli/worker.js', env, /"msg":"worker running"/);
  try {
    await ready;
    const readyAt = Date.now();
    const pid = child.pid ?? 0;
    const cpuBefore = cpuMs(pid);
    await waitUntil(
      () => gateway.arrivals.size >= ids.length,
      () => `only ${gateway.arrivals.size} of ${ids.length} pushes arrived`,
    );
    const cpuPerPush = cpuPerCall(pid, cpuBefore, ids.length);
    const rate = drainRate(ids.length, readyAt, gateway.arrivals.values());
    if (receiver === undefined) return { rate, cpuPerPush };
    const events = ids.length * EVENTS_PER_PUSH;
    await waitUntil(
      () => receiver.count() >= events,
      () => `only ${receiver.count()} of ${events} events arrived`,
    );
    const latencies = ids
      .map((id) => (receiver.sentAt.get(id) ?? NaN) - (gateway.arrivals.get(id) ?? NaN))
      .sort((a, b) => a - b);
    return {
      rate,
      cpuPerPush,
      eventRate: (events / Math.max(1, receiver.lastAt() - Math.min(readyAt, receiver.firstAt()))) * 1000,
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
    };
  } finally {
    await stopChild(child);
  }
}

/** Every event once, signed right, queued before sent for each message. */
function checkEvents(kind: Kind, receiver: Receiver, ids: readonly string[]): void {
  if (receiver.bad() > 0) throw new Error(`${kind}: ${receiver.bad()} events failed the signature check`);
  const wrong = ids.filter((id) => receiver.byMessage.get(id)?.join() !== 'notification.queued,notification.sent');
  if (wrong.length > 0)
    throw new Error(
      `${kind}: ${wrong.length} messages' events not queued then sent: ${receiver.byMessage.get(wrong[0])?.join() ?? 'none'}`,
    );
}

async function storeCase(
  kind: Kind,
  gateway: Gateway,
): Promise<{ off: Drain; on: DrainWithEvents; ratio: number; repeats: number }> {
  const location = createLocation(kind);
  let receiver: Receiver | null = null;
  try {
    const store = await openStore(location.options);
    try {
      await seed(store);
      const env = {
        ...storeEnvironment(location),
        DEMO_DATA: 'false',
        PUSH_PROVIDER: 'webhook',
        PUSH_WEBHOOK_URL: gateway.url,
        EVENTS_ALLOW_HTTP: 'true',
        EVENTS_ALLOW_PRIVATE: 'true',
        LOG_LEVEL: 'info',
        ...(PROFILE_DIR === ''
          ? {}
          : { NODE_OPTIONS: `--cpu-prof --cpu-prof-interval=200 --cpu-prof-dir=${PROFILE_DIR}` }),
      };
      const off = await drain(env, gateway, await queueBacklog(store));
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
      checkPositive(`${kind}: drain/s, events off`, off.rate);
      checkPositive(`${kind}: drain/s, events on`, on.rate);
      checkFigure(`${kind}: event p50 ms`, on.p50);
      checkFigure(`${kind}: event p99 ms`, on.p99);
      return { off, on, ratio: on.rate / off.rate, repeats: receiver.repeats() };
    } finally {
      await store.lifecycle.close();
    }
  } finally {
    await receiver?.close();
    await location.remove();
  }
}

const cpu = (us: number | null): string => (us === null ? '–' : fmt(us));

async function main(): Promise<void> {
  const stores = (DATABASE_URL === '' ? (['sqlite'] as const) : (['sqlite', 'postgres'] as const)).filter(
    (kind) => ONLY_STORES.length === 0 || ONLY_STORES.includes(kind),
  );
  const gateway = await startGateway();
  try {
    console.log(
      `\nDelivery events: ${fmt(MESSAGES)} pushes drained by one worker through a push gateway answering after ${PROVIDER_LATENCY_MS} ms +-20 %, ` +
        `${SCHOOLS} schools, events off then on for every school (a receiver checking every signature, answering after ${RECEIVER_LATENCY_MS} ms +-20 %)`,
    );
    // The worker's CPU a push while the pushes drain: on a machine busy with other work the rates follow the CPU
    // each process gets, so this ratio (off / on) is the steadier reading of what the events cost the pushes.
    console.log(
      '| store | drain/s, events off | drain/s, events on | ratio | worker CPU µs a push, off | on | CPU ratio | events/s | event latency p50 ms | p99 ms |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    for (const kind of stores) {
      const { off, on, ratio, repeats } = await storeCase(kind, gateway);
      console.log(
        `| ${kind} | ${fmt(off.rate)} | ${fmt(on.rate)} | ${ratio.toFixed(2)} | ${cpu(off.cpuPerPush)} | ${cpu(on.cpuPerPush)} | ${
          off.cpuPerPush === null || on.cpuPerPush === null ? '–' : (off.cpuPerPush / on.cpuPerPush).toFixed(2)
        } | ${fmt(on.eventRate)} | ${fmt(on.p50)} | ${fmt(on.p99)} |`,
      );
      if (repeats > 0) console.log(`${kind}: ${repeats} events arrived twice (dropped by webhook-id)`);
    }
    if (DATABASE_URL === '') skipPart('PostgreSQL', 'set BENCH_DATABASE_URL or TEST_DATABASE_URL');
    console.log('Target: drain with events on >= 0.8 x drain with events off.');
  } finally {
    await gateway.close();
  }
}

runMain(main);
