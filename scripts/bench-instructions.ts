// Instructions per call, counted by valgrind's callgrind: a measure of a
// server's own work that a loaded machine moves far less than CPU time
// (docs/benchmark.md#instructions-per-call). Two copies of one build in one
// run came within 2 %, where CPU time a call moves by tens of percent on this
// shared host. It counts the process's user-space instructions in every
// thread, not the kernel's: a system call counts as the few instructions
// around it, so a change in system calls is measured with strace instead.
//
//   node -r ./test/delivery/support/register-ts.js scripts/bench-instructions.ts [FOLDER ...]
//
// What moves it: timers. Under valgrind a call takes some fifty times as
// long, so the work of every timer (the connections' sweep, the log's flush,
// the checkpointer) weighs fifty times as much on each call, and how much of
// it falls in a window follows the wall clock, which the machine's load
// stretches. Compare builds within one run (as FOLDER arguments), never a
// figure with another run's.
//
// Each FOLDER (default: this checkout) holds a built dist/ and wsdl/, with
// node_modules beside them: build against build in one run. node:http
// answering the same bytes (scripts/bench-baseline.ts) is counted too, the
// ratio's denominator. BENCH_BINDINGS picks bindings (comma-separated; all
// four by default); BENCH_CASES=heavy adds SendNotificationType,
// GetStudentSchool of 500 and GetStudentsAudtiNote, BENCH_CASES=send
// SendNotificationType alone. BENCH_CALLS (3000) calls
// are counted after BENCH_WARMUP (6000) uncounted ones, so that V8 has
// compiled the path; 10 connections, as npm run bench loads. Node runs with
// --single-threaded besides the service's flags: V8's compiler and collector
// then work on the main thread, in step with the calls, where their helper
// threads' share of a window moved the count by a fifth from run to run.
// Without valgrind on PATH the script says so and exits 0.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { answerKey, fetchAnswer } from './bench-answer-key';
import type { CapturedAnswer } from './bench-baseline';
import {
  BINDINGS,
  checkAnswered,
  checkPositive,
  NODE_FLAGS,
  nodeArgs,
  onPath,
  openStore,
  request,
  root,
  runLoad,
  runMain,
  scaled,
  skipPart,
  type BenchRequest,
} from './bench-support';

const CALLS = scaled('BENCH_CALLS', 3000, 20);
const WARMUP = scaled('BENCH_WARMUP', 6000, 20);
const ONLY_TEXT = scaled('BENCH_BINDINGS', '', 'HTTP GET');
const ONLY = ONLY_TEXT === '' ? null : ONLY_TEXT.split(',').map((b) => b.trim());
const CASES = scaled('BENCH_CASES', '', '');
const HEAVY = CASES === 'heavy';
// BENCH_CASES=send: GetTokenDevice and SendNotificationType alone (docs/benchmark.md#ingestion).
const SEND = CASES === 'send';
const SCHOOL = 'https://bench.school.example';
const SMALL = 500;
const HOST = '127.0.0.1';
// The connection and operation limits, stretched as valgrind stretches every call, so that none ends one:
// a body the slowed server reads late would look like a slow sender to BODY_MIN_RATE.
const SLOW = {
  BODY_MIN_RATE: 'off',
  HEADERS_TIMEOUT_MS: '600000',
  REQUEST_TIMEOUT_MS: '600000',
  KEEP_ALIVE_TIMEOUT_MS: '600000',
  OPERATION_TIMEOUT_MS: '600000',
};

const cases: Array<[string, BenchRequest]> = [
  ...BINDINGS.filter((b) => ONLY === null || ONLY.includes(b)).map((b): [string, BenchRequest] => [
    `GetTokenDevice, ${b}`,
    request('PushNotificationMobile', 'GetTokenDevice', { id: 'dev-bench' }, b),
  ]),
  ...(HEAVY || SEND
    ? ([
        [
          'SendNotificationType, SOAP 1.1',
          request(
            'NotificationNotes',
            'SendNotificationType',
            { id: 'stu-0', baseUrlSchool: SCHOOL, TypeNotfication: 'absence' },
            'SOAP 1.1',
          ),
        ],
      ] as Array<[string, BenchRequest]>)
    : []),
  ...(HEAVY
    ? ([
        [
          'GetStudentSchool 500, SOAP 1.1',
          request('NotificationNotes', 'GetStudentSchool', { school_base_url: SCHOOL, show_active: '1' }, 'SOAP 1.1', {
            school_base_url: SCHOOL,
            show_active: '49',
          }),
        ],
        [
          'GetStudentsAudtiNote, SOAP 1.1',
          request('GetStudentsAudit', 'GetStudentsAudtiNote', { SubjectID: 'MATH', Class_id: 'C1' }, 'SOAP 1.1'),
        ],
      ] as Array<[string, BenchRequest]>)
    : []),
];

interface Counted {
  readonly child: ChildProcess;
  readonly port: number;
  readonly outDir: string;
}

/** `script` under callgrind with instrumentation off until counting starts; resolves once it listens. */
function startCounted(script: string, env: Record<string, string>, cwd: string): Promise<Counted> {
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'sns-callgrind-'));
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      // V8 writes and rewrites its own machine code.
      '--smc-check=all-non-file',
      `--callgrind-out-file=${path.join(outDir, 'cg.%p')}`,
      process.execPath,
      ...NODE_FLAGS,
      '--single-threaded',
      ...nodeArgs(script),
    ],
    { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const match = /^(?=.*listening).*"port":(\d+)/m.exec(out) ?? /^listening (\d+)$/m.exec(out);
      if (match) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve({ child, port: Number(match[1]), outDir });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.resume();
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before listening:\n${out}`)));
  });
}

function control(pid: number, ...args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    // vgdb names its pipes after the target's HOST variable, which the service's environment sets: the same here.
    const c = spawn('callgrind_control', [...args, String(pid)], { stdio: 'ignore', env: { ...process.env, HOST } });
    c.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`callgrind_control ${args.join(' ')}: ${code}`)),
    );
  });
}

/** `amount` calls with 10 connections, every one answered 2xx; how many were answered. */
async function load(port: number, req: BenchRequest, amount: number): Promise<number> {
  // Under valgrind on a loaded machine an answer can take seconds: waited for, not counted as an error.
  const result = await runLoad(port, req, { connections: 10, duration: 0, amount, timeout: 300 });
  return checkAnswered(`${amount} calls`, result).requests.total;
}

/** Instructions (all threads) over `CALLS` calls after the warm-up, per call. */
async function count(server: Counted, req: BenchRequest): Promise<number> {
  const pid = server.child.pid ?? 0;
  await load(server.port, req, WARMUP);
  await control(pid, '--zero');
  await control(pid, '--instr=on');
  const calls = await load(server.port, req, CALLS);
  await control(pid, '--instr=off');
  for (const f of readdirSync(server.outDir)) rmSync(path.join(server.outDir, f));
  await control(pid, '--dump');
  // The dump is written by the process itself once it next runs: waited for.
  const deadline = Date.now() + 60_000;
  let total: number | null = null;
  while (total === null) {
    total = dumpedTotal(server.outDir);
    if (total !== null) break;
    if (Date.now() > deadline) throw new Error('callgrind wrote no dump');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return checkPositive('instructions per call', total / calls);
}

/** The instructions of every dump in `dir`, once each holds its totals; null until then. */
function dumpedTotal(dir: string): number | null {
  const files = readdirSync(dir);
  if (files.length === 0) return null;
  let total = 0;
  for (const f of files) {
    const found = /^totals: (\d+)$/m.exec(readFileSync(path.join(dir, f), 'utf8'));
    if (found === null) return null;
    total += Number(found[1]);
  }
  return total;
}

async function stop(server: Counted): Promise<void> {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
  rmSync(server.outDir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  if (!onPath('valgrind') || !onPath('callgrind_control')) {
    skipPart('Instructions per call', 'valgrind is not installed (Debian: apt-get install valgrind)');
    return;
  }
  const folders = process.argv.slice(2).length > 0 ? process.argv.slice(2).map((f) => path.resolve(f)) : [root];
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-instr-'));
  try {
    const seedDir = path.join(dataDir, 'seed');
    const store = await openStore({ dataDir: seedDir });
    await store.dataSet.writeDataSet({
      schools: [{ baseUrl: SCHOOL, name: 'Bench School' }],
      devices: [{ id: 'dev-bench', token: 'fcm:bench-token-0123456789abcdef', platform: 'android' }],
      students: Array.from({ length: SMALL }, (_, i) => ({
        id: `stu-${i}`,
        school: SCHOOL,
        fullName: `Bench Student ${i}`,
        deviceId: i === 0 ? 'dev-bench' : null,
        active: '1',
      })),
    });
    await store.lifecycle.close();

    const results = new Map<string, number[]>();
    const answers: Record<string, CapturedAnswer> = {};
    for (const [i, folder] of folders.entries()) {
      const data = path.join(dataDir, `f${i}`);
      rmSync(data, { recursive: true, force: true });
      // A copy of the seeded store for each build.
      await new Promise<void>((resolve, reject) =>
        spawn('cp', ['-r', seedDir, data]).once('exit', (c) => (c === 0 ? resolve() : reject(new Error('cp')))),
      );
      const server = await startCounted(
        path.join(folder, 'dist/main.js'),
        // No delivery worker in the process: its polls would be counted against the calls, and under
        // valgrind a call takes fifty times as long, so any timer's share of a call grows as much.
        {
          PORT: '0',
          HOST,
          DATA_DIR: data,
          DATABASE_URL: '',
          DEMO_DATA: 'false',
          LOG_LEVEL: 'info',
          WORKER: 'false',
          ...SLOW,
        },
        folder,
      );
      try {
        for (const [name, req] of cases) {
          if (i === 0) {
            const answer = await fetchAnswer(server.port, req);
            if (answer.status !== 200) throw new Error(`${name}: ${answer.status}`);
            answers[answerKey(req.method, req.path, req.headers)] = answer;
          }
          results.set(`${name}|${i}`, [await count(server, req)]);
        }
      } finally {
        await stop(server);
      }
    }
    const answersFile = path.join(dataDir, 'answers.json');
    writeFileSync(answersFile, JSON.stringify(answers));
    const baseline = await startCounted(
      path.join(root, 'scripts/bench-baseline.ts'),
      { ANSWERS: answersFile, BASELINE: 'node-http', HOST },
      root,
    );
    try {
      for (const [name, req] of cases) results.set(`${name}|node:http`, [await count(baseline, req)]);
    } finally {
      await stop(baseline);
    }

    console.log(`\nInstructions per call (thousands), ${CALLS} calls after ${WARMUP}, 10 connections`);
    const heads = folders.map((f, i) => `${i === 0 ? 'A' : String.fromCharCode(65 + i)} (${path.basename(f)})`);
    console.log(
      `| case | ${heads.join(' | ')} | node:http | ${heads.map((h) => `node:http / ${h.split(' ')[0]}`).join(' | ')} |`,
    );
    console.log(`|---|${heads.map(() => '---|').join('')}---|${heads.map(() => '---|').join('')}`);
    for (const [name] of cases) {
      const base = results.get(`${name}|node:http`)?.[0] ?? NaN;
      const own = folders.map((_, i) => results.get(`${name}|${i}`)?.[0] ?? NaN);
      console.log(
        `| ${name} | ${own.map((n) => (n / 1000).toFixed(1)).join(' | ')} | ${(base / 1000).toFixed(1)} | ${own.map((n) => (base / n).toFixed(2)).join(' | ')} |`,
      );
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

runMain(main);
