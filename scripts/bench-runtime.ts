// Two Node.js runtimes serving the same calls: CPU per call of the service
// process and calls/s, GetTokenDevice on every binding, the two runtimes in
// alternating rounds on one machine (docs/benchmark.md#runtime). CPU per call
// is read from /proc, so it holds up better than calls/s on a busy machine.
//
//   BENCH_NODE_B=/path/to/other/node [BENCH_ROOT_B=/folder] \
//     node -r ./test/delivery/support/register-ts.js scripts/bench-runtime.ts
//
// BENCH_INGESTION=1 serves SendNotificationType over SOAP 1.1 beside
// GetTokenDevice over SOAP 1.1 instead of the four bindings: two builds'
// ingestion cost side by side (docs/benchmark.md#ingestion), the delivery
// worker off; BENCH_WORKER=1 leaves it in the process, as the calls table of
// scripts/bench.ts runs the service (each push then also delivered).
// BENCH_BINDINGS=SOAP 1.1,HTTP POST serves only the bindings named (comma-separated), with more rounds in the
// same time for a change that moves one of them (docs/benchmark.md#fourth-round).
// BENCH_TOGETHER=1 loads A and B at the same time in each round instead of one after the other: on a machine
// whose other work comes and goes, both then meet the same moments (docs/benchmark.md#fourth-round).
// BENCH_STORE=postgres keeps each runtime's store in a PostgreSQL schema of
// its own (BENCH_DATABASE_URL or TEST_DATABASE_URL) instead of SQLite; the
// CPU counted is the service's, not PostgreSQL's.
//
// A runs `process.execPath` on this checkout's dist/. B runs BENCH_NODE_B on
// BENCH_ROOT_B's dist/ (default: this checkout): a folder holding a copy of
// dist/ and wsdl/ and a node_modules whose native modules were built for B
// (better-sqlite3 13 needs Node 22 or newer; for Node 20, 12.x).
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  BINDINGS,
  checkAnswered,
  checkFigure,
  checkPositive,
  cpuMs,
  cpuPerCall,
  createLocation,
  DATABASE_URL,
  median,
  NODE_FLAGS,
  openStore,
  pidOf,
  request,
  root,
  runLoad,
  runMain,
  scaled,
  skipPart,
  SMOKE,
  startChild,
  type BenchRequest,
  type Listening,
  type StoreLocation,
} from './bench-support';
import { storeEnvironment } from '../test/delivery/support/worker-process';

// A smoke run without a second runtime compares this one with itself: the path is the same.
const NODE_B = process.env.BENCH_NODE_B || (SMOKE ? process.execPath : undefined);
if (!process.env.BENCH_NODE_B && SMOKE) skipPart('A second runtime', 'BENCH_NODE_B is unset; B is this Node too');
if (!NODE_B) {
  console.error('Set BENCH_NODE_B to the other node binary (see the header of this file).');
  process.exit(2);
}
const ROOT_B = process.env.BENCH_ROOT_B ?? root;
const ROUNDS = scaled('BENCH_ROUNDS', 3, 1);
const DURATION = scaled('BENCH_DURATION', 5, 0.1);
const INGESTION = process.env.BENCH_INGESTION === '1';
const WORKER = process.env.BENCH_WORKER === '1';
const ON_POSTGRES = process.env.BENCH_STORE === 'postgres';
if (ON_POSTGRES && DATABASE_URL === '') {
  console.error('BENCH_STORE=postgres needs BENCH_DATABASE_URL or TEST_DATABASE_URL.');
  process.exit(2);
}
const TOGETHER = process.env.BENCH_TOGETHER === '1';
const ONLY_BINDINGS = process.env.BENCH_BINDINGS ? process.env.BENCH_BINDINGS.split(',').map((b) => b.trim()) : null;
const STUDENT = 'stu-bench';
const SCHOOL = 'https://bench.school.example';

/** What each round serves, by name. */
const CASES: ReadonlyArray<readonly [string, BenchRequest]> = INGESTION
  ? [
      [
        'GetTokenDevice, SOAP 1.1',
        request('PushNotificationMobile', 'GetTokenDevice', { id: 'dev-bench' }, 'SOAP 1.1'),
      ],
      [
        'SendNotificationType, SOAP 1.1',
        request(
          'NotificationNotes',
          'SendNotificationType',
          { id: STUDENT, baseUrlSchool: SCHOOL, TypeNotfication: 'absence' },
          'SOAP 1.1',
        ),
      ],
    ]
  : BINDINGS.filter((binding) => ONLY_BINDINGS === null || ONLY_BINDINGS.includes(binding)).map((binding) => [
      binding,
      request('PushNotificationMobile', 'GetTokenDevice', { id: 'dev-bench' }, binding),
    ]);

function version(node: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(node, ['--version']);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', () => resolve(out.trim()));
  });
}

interface Runtime {
  readonly name: string;
  readonly node: string;
  readonly folder: string;
  version?: string;
  service?: Listening;
  readonly results: Record<string, Array<{ cpuUs: number; rate: number }>>;
}

async function main(node: string): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-runtime-'));
  const locations: StoreLocation[] = [];
  const noResults = (): Runtime['results'] => Object.fromEntries(CASES.map(([name]) => [name, []]));
  const runtimes: Runtime[] = [
    { name: 'A', node: process.execPath, folder: root, results: noResults() },
    { name: 'B', node, folder: ROOT_B, results: noResults() },
  ];
  try {
    const seedDir = path.join(dataDir, 'seed');
    const seed = async (options: StoreLocation['options']): Promise<void> => {
      const store = await openStore(options);
      await store.dataSet.writeDataSet({
        schools: [{ baseUrl: SCHOOL, name: 'Bench School' }],
        devices: [{ id: 'dev-bench', token: 'fcm:bench-token-0123456789abcdef', platform: 'android' }],
        students: [{ id: STUDENT, school: SCHOOL, fullName: 'Bench Student', deviceId: 'dev-bench', active: '1' }],
      });
      await store.lifecycle.close();
    };
    if (!ON_POSTGRES) await seed({ dataDir: seedDir });
    for (const r of runtimes) {
      r.version = await version(r.node);
      let storeEnv: Record<string, string>;
      if (ON_POSTGRES) {
        const location = createLocation('postgres');
        locations.push(location);
        await seed(location.options);
        storeEnv = storeEnvironment(location);
      } else {
        const runtimeData = path.join(dataDir, r.name);
        cpSync(seedDir, runtimeData, { recursive: true });
        storeEnv = { DATA_DIR: runtimeData, DATABASE_URL: '' };
      }
      // A minimal environment (no inherited settings), in B's folder with B's node.
      r.service = await startChild(
        path.join(r.folder, 'dist/main.js'),
        {
          PORT: '0',
          HOST: '127.0.0.1',
          ...storeEnv,
          DEMO_DATA: 'false',
          LOG_LEVEL: 'info',
          ...(INGESTION && !WORKER ? { WORKER: 'false' } : {}),
        },
        { PATH: process.env.PATH },
        { node: r.node, cwd: r.folder },
      );
    }
    console.log(
      `A: ${runtimes[0].version ?? '?'}, B: ${runtimes[1].version ?? '?'}; flags ${NODE_FLAGS.join(' ') || '(none)'}`,
    );
    const measure = async (r: Runtime, binding: string, req: BenchRequest): Promise<void> => {
      if (r.service === undefined) throw new Error(`${r.name} did not start`);
      const pid = pidOf(r.service.child);
      const before = cpuMs(pid);
      const result = checkAnswered(
        `${r.name} ${binding}`,
        await runLoad(r.service.port, req, { connections: 10, duration: DURATION }),
      );
      // CPU is read in 10 ms ticks: a short smoke load may count none.
      r.results[binding].push({
        cpuUs: checkFigure(`${r.name} ${binding}: CPU µs/call`, cpuPerCall(pid, before, result.requests.total)),
        rate: checkPositive(`${r.name} ${binding}: calls/s`, result.requests.average),
      });
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [binding, req] of CASES) {
        // Together: both loaded at the same moments, so that what else the machine does weighs on both alike.
        if (TOGETHER) await Promise.all(runtimes.map((r) => measure(r, binding, req)));
        else for (const r of round % 2 === 0 ? runtimes : [...runtimes].reverse()) await measure(r, binding, req);
      }
    }
    console.log(
      `\n${INGESTION ? 'Ingestion' : 'GetTokenDevice'}, 10 connections, ${ON_POSTGRES ? 'PostgreSQL' : 'SQLite'}; medians of the rounds`,
    );
    console.log(
      '| case | A CPU µs/call | B CPU µs/call | A/B CPU | A/B CPU, median of the rounds | A calls/s | B calls/s |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const [binding] of CASES) {
      const [ra, rb] = runtimes.map((r) => r.results[binding]);
      // Each round's own ratio, then their median: a round that met a busy moment weighs once.
      const roundRatio = median(ra.map((x, i) => x.cpuUs / rb[i].cpuUs));
      const [a, b] = runtimes.map((r) => ({
        cpu: median(r.results[binding].map((x) => x.cpuUs)),
        rate: median(r.results[binding].map((x) => x.rate)),
      }));
      console.log(
        `| ${binding} | ${a.cpu.toFixed(0)} | ${b.cpu.toFixed(0)} | ${(a.cpu / b.cpu).toFixed(2)} | ${roundRatio.toFixed(2)} | ${a.rate.toFixed(0)} | ${b.rate.toFixed(0)} |`,
      );
    }
  } finally {
    for (const r of runtimes) r.service?.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    rmSync(dataDir, { recursive: true, force: true });
    for (const location of locations) await location.remove();
  }
}

runMain(() => main(NODE_B));
