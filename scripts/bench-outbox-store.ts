// The store's share of a push's CPU, alone (docs/delivery.md#cpu-per-push):
// one process opens the store of each build named in BENCH_BUILDS (folders
// holding a src/ tree; default: this one), queues BENCH_MESSAGES pushes in
// each, then claims them BENCH_CLAIM at a time and writes each claim's
// results as sent in one completeDeliveries call, as a busy worker does.
// The builds take turns, round after round (BENCH_ROUNDS), so that the
// machine's load falls on each alike; only the claims and results are
// counted (process.cpuUsage, user and system), queueing is not. Printed:
// CPU per message of each build in each round, and the medians.
//
//   node -r ./test/delivery/support/register-ts.js scripts/bench-outbox-store.ts
//   BENCH_BUILDS=/tmp/before,. BENCH_STORE=postgres node -r … scripts/bench-outbox-store.ts
//
// BENCH_STORE=postgres uses BENCH_DATABASE_URL or TEST_DATABASE_URL, a schema
// of its own per build, dropped afterwards. BENCH_EVENTS=1 subscribes the
// school to delivery events, so that each result writes an event row too.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { resolveOptions } from '../src/domain/message-options';
import type { DataSet, OpenedStore, OpenStoreOptions } from '../src/store';
import { postgresCpuMs, postgresCpuSince, SMOKE } from './bench-support';

const BUILDS = (process.env.BENCH_BUILDS ?? '.').split(',').map((dir) => path.resolve(dir));
const MESSAGES = SMOKE ? 200 : Number(process.env.BENCH_MESSAGES ?? 3000);
const CLAIM = Number(process.env.BENCH_CLAIM ?? 100);
const ROUNDS = SMOKE ? 1 : Number(process.env.BENCH_ROUNDS ?? 5);
const POSTGRES = process.env.BENCH_STORE === 'postgres';
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? '';
const EVENTS = process.env.BENCH_EVENTS === '1';
// A folder: each build's drains are profiled (V8 CPU profile, queueing left out), one file per build.
const PROFILE_DIR = process.env.BENCH_PROFILE ?? '';
const STUDENTS = 500;
const SCHOOL = 'http://bench.school.example';

interface Build {
  readonly dir: string;
  readonly store: OpenedStore;
  readonly cleanup: () => Promise<void>;
  readonly figures: number[];
  /** PostgreSQL: its server processes' CPU per message over the same drains (all of them: other work on it counts too). */
  readonly server: number[];
}

async function openBuild(dir: string, index: number): Promise<Build> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- each build's own sources, chosen at run time
  const { openStore } = require(path.join(dir, 'src/store')) as typeof import('../src/store');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-outbox-store-'));
  const schema = `bench_outbox_${process.pid}_${index}`;
  const options: OpenStoreOptions = POSTGRES ? { databaseUrl: DATABASE_URL, dataDir, schema } : { dataDir };
  const store = await openStore(options);
  const devices: NonNullable<DataSet['devices']>[number][] = [];
  const students: NonNullable<DataSet['students']>[number][] = [];
  for (let i = 0; i < STUDENTS; i++) {
    const id = String(100000 + i);
    devices.push({ id: `dev-${id}`, token: `fcm-token-${id}-${'x'.repeat(120)}`, platform: 'android' });
    students.push({ id, school: SCHOOL, fullName: `Student ${i}`, deviceId: `dev-${id}`, active: '1', classId: 'C1' });
  }
  await store.dataSet.writeDataSet({
    schools: [{ baseUrl: SCHOOL, name: 'Bench School', ...(EVENTS ? { eventsUrl: 'https://events.example/in' } : {}) }],
    devices,
    students,
  });
  const cleanup = async (): Promise<void> => {
    await store.lifecycle.close();
    if (POSTGRES) {
      const { Client } = await import('pg');
      const client = new Client({ connectionString: DATABASE_URL });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { dir, store, cleanup, figures: [], server: [] };
}

async function queue(store: OpenedStore): Promise<void> {
  const calls: Promise<string>[] = [];
  for (let n = 0; n < MESSAGES; n++) {
    const id = String(100000 + (n % STUDENTS));
    // With options as SendNotificationType queues them (src/operations/queue-notification.ts): each its own
    // lifetime (a week from when it is due), the platforms' part the same (docs/delivery.md#cpu-per-push).
    const options = resolveOptions('general', new Date(Date.now() + n), 'Asia/Damascus', {});
    calls.push(
      store.outbox.enqueuePushNotification({
        deviceId: `dev-${id}`,
        studentId: id,
        type: 'absence',
        title: 'Absence',
        body: 'Your child was absent today.',
        data: { type: 'absence', studentId: id },
        schoolKey: SCHOOL,
        options,
      }),
    );
    if (calls.length >= 200) await Promise.all(calls.splice(0));
  }
  await Promise.all(calls);
}

/** Claims and completes every queued push; CPU µs per message. */
async function drain(store: OpenedStore): Promise<number> {
  let done = 0;
  const before = process.cpuUsage();
  for (;;) {
    const claimed = await store.outbox.claimPushNotifications(CLAIM, 60);
    if (claimed.length === 0) break;
    const written = await store.outbox.completeDeliveries(
      claimed.map((m) => ({
        channel: 'push' as const,
        id: m.id,
        claimToken: m.claimToken,
        completion: { status: 'sent' as const, providerMessageId: `projects/p/messages/${m.id}` },
      })),
    );
    if (written.some((current) => !current)) throw new Error('a claim was not current');
    done += claimed.length;
  }
  const used = process.cpuUsage(before);
  if (done !== MESSAGES) throw new Error(`drained ${done} of ${MESSAGES}`);
  return (used.user + used.system) / done;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** One more round per build under the profiler, written to PROFILE_DIR as build-N.cpuprofile. */
async function profileDrains(builds: readonly Build[]): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  for (const [index, build] of builds.entries()) {
    await queue(build.store);
    await session.post('Profiler.start');
    await drain(build.store);
    const { profile } = await session.post('Profiler.stop');
    const file = path.join(PROFILE_DIR, `build-${index}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    console.log(`${build.dir}: profile of ${MESSAGES} pushes in ${file}`);
  }
  session.disconnect();
}

async function main(): Promise<void> {
  if (POSTGRES && DATABASE_URL === '')
    throw new Error('BENCH_STORE=postgres needs BENCH_DATABASE_URL or TEST_DATABASE_URL');
  const builds: Build[] = [];
  try {
    for (const [index, dir] of BUILDS.entries()) builds.push(await openBuild(dir, index));
    console.log(
      `store ${POSTGRES ? 'postgres' : 'sqlite'}, ${MESSAGES} pushes a round, claims of ${CLAIM}, events ${EVENTS ? 'on' : 'off'}, load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    for (let round = 1; round <= ROUNDS; round++) {
      // Alternate which build goes first, so that neither always follows the other's garbage.
      const order = round % 2 === 1 ? builds : [...builds].reverse();
      for (const build of order) {
        await queue(build.store);
        const server = POSTGRES ? postgresCpuMs() : null;
        build.figures.push(await drain(build.store));
        const serverMs = server === null ? null : postgresCpuSince(server);
        if (serverMs !== null) build.server.push((serverMs * 1000) / MESSAGES);
      }
      const figure = (b: Build) =>
        `${b.figures.at(-1)?.toFixed(1)} µs${POSTGRES ? ` (server ${b.server.at(-1)?.toFixed(0) ?? '?'})` : ''}`;
      console.log(`round ${round}: ${builds.map(figure).join('  ')}`);
    }
    if (PROFILE_DIR !== '') await profileDrains(builds);
    for (const build of builds) {
      console.log(
        `${build.dir}: median ${median(build.figures).toFixed(1)} µs a message (${build.figures.map((f) => f.toFixed(1)).join(', ')})`,
      );
      if (build.server.length > 0)
        console.log(`  PostgreSQL's processes: median ${median(build.server).toFixed(1)} µs a message`);
    }
    console.log(
      `load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    for (const build of builds) await build.cleanup();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
