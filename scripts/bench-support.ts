// What the benchmarks (scripts/bench*.ts) and npm run soak (scripts/soak.ts)
// share: the repository root, how a script and the built service are started,
// the Node flags `npm start` gives the service, the request each binding sends,
// autocannon's load, a child process started until it listens (or says it is
// ready) and stopped, its memory and CPU from /proc (and PostgreSQL's and the
// machine's), waiting for a fake to have seen everything, quantiles and drain
// rates, a fresh store to seed, and the smoke mode every script runs in from
// `npm test`. The fakes (FCM, the legacy service) are the tests' own, under test/.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import type * as StoreModule from '../src/store';
import type { OpenStoreOptions } from '../src/store';
import { envelope, NS } from '../test/support/wire';

export const root = path.resolve(__dirname, '..');

// The scripts are TypeScript run through the tests' transpile-only hook, as
// the crash tests run the worker (docs/benchmark.md#how-the-scripts-run).
export const TS_HOOK: readonly string[] = ['-r', path.join(root, 'test/delivery/support/register-ts.js')];

/** The arguments that make `node` run `script`: through the TypeScript hook when it is a .ts file. */
export function nodeArgs(script: string): string[] {
  return script.endsWith('.ts') ? [...TS_HOOK, script] : [script];
}

/** A module of the built service (dist/), with its source's types: the scripts measure what `npm start` runs. */
export function built<T>(modulePath: string): T {
  // A path known only at run time, and a module with no types of its own: the caller names its source's.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(root, 'dist', modulePath)) as T;
}

/** The built store's openStore: what the scripts seed and read the service's data with. */
export const openStore: typeof StoreModule.openStore = (options) =>
  built<typeof StoreModule>('store').openStore(options);
export type Store = Awaited<ReturnType<typeof openStore>>;

/** Runs a script's main and exits non-zero with its error when it fails. */
export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

// The service runs with the Node flags `npm start` gives it (package.json).
// BENCH_NODE_FLAGS replaces them (space-separated; `none` for Node's defaults) to measure a flag's worth
// (docs/architecture.md#the-node-flag).
export const NODE_FLAGS: readonly string[] = (
  process.env.BENCH_NODE_FLAGS ??
  (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start
)
  .split(/\s+/)
  .filter((arg) => arg.startsWith('--'));

// Smoke mode (BENCH_SMOKE=1, docs/testing.md#the-scripts-smoke-mode): every
// script runs its full path with the smallest counts and durations that still
// exercise it, so that test/unit/scripts-smoke.test.ts sees a script broken by
// a change elsewhere. Read here only; the scripts take their sizes from scaled().
export const SMOKE = process.env.BENCH_SMOKE === '1';
if (SMOKE)
  console.log('smoke mode (BENCH_SMOKE=1): tiny counts and durations; the figures are checks, not measurements');

/**
 * A count, duration or size: `smoke` in smoke mode (the environment is not
 * read then, so that a smoke run is the same everywhere); otherwise the
 * environment variable `name` as a number when it is set (`name` null: none
 * overrides it), else `full`.
 */
export function scaled(name: string | null, full: number, smoke: number): number;
export function scaled(name: string | null, full: string, smoke: string): string;
export function scaled(name: string | null, full: number | string, smoke: number | string): number | string {
  if (SMOKE) return smoke;
  const set = name === null ? undefined : process.env[name];
  if (set === undefined) return full;
  return typeof full === 'number' ? Number(set) : set;
}

export type LoadResult = autocannon.Result;

/** One request as the scripts send it: to a path of the server under test. */
export interface BenchRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/**
 * autocannon against `port` with `req`: `connections` for `duration`
 * seconds, or at `rate` calls a second. In smoke mode a number of requests
 * instead of a duration (a fresh service on a busy machine may answer none in
 * a short one), sampled every 50 ms instead of every second (autocannon runs
 * for at least one sample; its rates, requests.average, are then per 50 ms,
 * still comparable with each other). A load that got no answer rejects: it
 * would print a ratio of NaN or Infinity.
 */
export function runLoad(
  port: number,
  req: BenchRequest,
  options: {
    connections: number;
    duration: number;
    rate?: number;
    amount?: number;
    timeout?: number;
    /** Each request made afresh: `req` with this one's path and body (e.g. a student of many instead of one). */
    vary?: () => Pick<BenchRequest, 'path' | 'body'>;
  },
): Promise<LoadResult> {
  const { vary } = options;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `http://127.0.0.1:${port}${req.path}`,
        method: req.method,
        headers: req.headers,
        body: req.body,
        connections: options.connections,
        duration: options.duration,
        ...(SMOKE ? { amount: 20, sampleInt: 50 } : {}),
        // A number of requests (instead of the duration), exactly, smoke mode or not.
        ...(options.amount === undefined ? {} : { amount: options.amount }),
        ...(options.rate === undefined ? {} : { overallRate: options.rate }),
        ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
        ...(vary === undefined
          ? {}
          : { requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, ...vary() }) }] }),
      },
      (error, result) => {
        if (error) return reject(error);
        try {
          checkPositive('requests answered', result.requests.total);
          checkPositive('requests per sample', result.requests.average);
          resolve(result);
        } catch (failed) {
          reject(failed instanceof Error ? failed : new Error(String(failed)));
        }
      },
    );
  });
}

/** Throws unless every call of a load was answered 2xx. */
export function checkAnswered(what: string, result: LoadResult): LoadResult {
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${what}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result;
}

/** Says that a part of a script is left out, and why (a tool or a database this machine lacks). */
export function skipPart(part: string, why: string): void {
  console.log(`${part} skipped: ${why}`);
}

/** Whether a program is on PATH (openssl, taskset): what a part that runs one needs. */
export function onPath(program: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => {
    try {
      accessSync(path.join(dir, program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * In smoke mode, whether `program` is there for `script`; when it is not,
 * says so: the caller then skips what needs it (npm test needs nothing beyond
 * npm install). Outside smoke mode, true: a full run fails where it is missing.
 */
export function smokeHas(program: string, script: string): boolean {
  if (!SMOKE || onPath(program)) return true;
  skipPart(script, `${program} is not on PATH`);
  return false;
}

/**
 * Throws unless `value` is a finite number of at least `min` (0 by default):
 * a script's own result checked, so that a broken path exits non-zero instead
 * of printing NaN.
 */
export function checkFigure(what: string, value: number | null | undefined, min = 0): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min)
    throw new Error(`${what}: ${value} is not a figure of at least ${min}`);
  return value;
}

/** checkFigure for what must be above 0: a rate, a count, a ratio. */
export function checkPositive(what: string, value: number | null | undefined): number {
  const figure = checkFigure(what, value);
  if (figure <= 0) throw new Error(`${what}: ${figure} is not above 0`);
  return figure;
}

/** A number with thousands separators and `digits` decimals. */
export const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** The median of a list of numbers (the upper one of an even list). */
export const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export const BINDINGS = ['SOAP 1.1', 'SOAP 1.2', 'HTTP GET', 'HTTP POST'] as const;
export type Binding = (typeof BINDINGS)[number];
export type Params = Record<string, string>;

/**
 * One call over one binding, as real clients send it (the envelope as the
 * tests write it, test/support/wire.ts); `soapParams` where SOAP's values
 * differ (a char's code).
 */
export function request(
  endpoint: string,
  op: string,
  params: Params,
  binding: Binding,
  soapParams: Params = params,
): BenchRequest {
  if (binding === 'SOAP 1.1')
    return {
      method: 'POST',
      path: `/${endpoint}.asmx`,
      headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${NS}${op}"` },
      body: envelope('1.1', op, soapParams),
    };
  if (binding === 'SOAP 1.2')
    return {
      method: 'POST',
      path: `/${endpoint}.asmx`,
      headers: { 'content-type': `application/soap+xml; charset=utf-8; action="${NS}${op}"` },
      body: envelope('1.2', op, soapParams),
    };
  if (binding === 'HTTP GET')
    return { method: 'GET', path: `/${endpoint}.asmx/${op}?${new URLSearchParams(params).toString()}`, headers: {} };
  return {
    method: 'POST',
    path: `/${endpoint}.asmx/${op}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  };
}

/** A process the scripts started that listens on `port`. */
export interface Listening {
  readonly child: ChildProcess;
  readonly port: number;
}

/**
 * Starts `node NODE_FLAGS script` (`node` and its working folder as given)
 * with `env` over `baseEnv` and resolves with the port from its `listening`
 * line (the service's JSON log, or the baselines' `listening PORT`). Its
 * output is read only until then.
 */
export function startChild(
  script: string,
  env: Record<string, string>,
  baseEnv: NodeJS.ProcessEnv = process.env,
  runtime: { node?: string; cwd?: string } = {},
): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const child = spawn(runtime.node ?? process.execPath, [...NODE_FLAGS, ...nodeArgs(script)], {
      cwd: runtime.cwd,
      env: { ...baseEnv, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const match = /^(?=.*listening).*"port":(\d+)/m.exec(out) ?? /^listening (\d+)$/m.exec(out);
      if (match) {
        // From here on the service writes an access-log line per request:
        // drain it without keeping or scanning it.
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve({ child, port: Number(match[1]) });
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before listening:\n${out}`)));
  });
}

/** The pid of a child that was started (spawn gives none only when it failed to start). */
export function pidOf(child: ChildProcess): number {
  if (child.pid === undefined) throw new Error('the child process did not start');
  return child.pid;
}

// /proc/PID/stat: the command's name between parentheses, then the fields;
// utime and stime (fields 14 and 15) in clock ticks, 100 a second on Linux.
function readStat(pid: number | string): { command: string; cpuMs: number } {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ');
  return { command: text.slice(text.indexOf('(') + 1, close), cpuMs: (Number(fields[11]) + Number(fields[12])) * 10 };
}

/** CPU time (user + system) a process has used so far, in ms, from /proc/PID/stat; null where there is no /proc. */
export function cpuMs(pid: number): number | null {
  try {
    return readStat(pid).cpuMs;
  } catch {
    return null;
  }
}

/** A process's CPU µs per call over `calls` since `before` (cpuMs); null where there is no /proc. */
export function cpuPerCall(pid: number, before: number | null, calls: number): number | null {
  const now = cpuMs(pid);
  return before === null || now === null ? null : ((now - before) * 1000) / calls;
}

/** The machine's CPU counters so far (all cores, clock ticks): busy and total; null where there is no /proc. */
export function machineTicks(): { busy: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((sum, value) => sum + value, 0);
    // idle and iowait are the 4th and 5th.
    return { busy: total - fields[3] - fields[4], total };
  } catch {
    return null;
  }
}

/** CPU so far of each PostgreSQL server process on this machine (pid to ms); empty when none can be read. */
export function postgresCpuMs(): Map<string, number> {
  const byPid = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readStat(entry);
      if (stat.command.startsWith('postgres')) byPid.set(entry, stat.cpuMs);
    } catch {
      // Gone meanwhile.
    }
  }
  return byPid;
}

/** PostgreSQL's CPU since `before` (postgresCpuMs()), in ms, over the processes alive now; null when none could be read. */
export function postgresCpuSince(before: ReadonlyMap<string, number>): number | null {
  const now = postgresCpuMs();
  if (now.size === 0) return null;
  let total = 0;
  for (const [pid, ms] of now) total += ms - (before.get(pid) ?? 0);
  return total;
}

/** A /proc/PID/status memory field in kB: VmRSS (now) or VmHWM (peak). */
export function rssKb(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
}

/** The machine's load average (1, 5 and 15 minutes), as the reports print it. */
export const loadAverage = (): string =>
  os
    .loadavg()
    .map((n) => fmt(n, 2))
    .join(', ');

/** A child started by spawnUntilReady. */
export interface Started {
  readonly child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** Resolves with the match of the ready pattern; rejects if the process exits first. */
  readonly ready: Promise<RegExpExecArray>;
}

/**
 * Starts `node script` (relative to the root) with `env` (over PATH and
 * LOG_LEVEL=info only: each bench sets what it measures) and reads its output
 * until `readyPattern` matches.
 */
export function spawnUntilReady(script: string, env: Record<string, string>, readyPattern: RegExp): Started {
  const child = spawn(process.execPath, nodeArgs(path.join(root, script)), {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const ready = new Promise<RegExpExecArray>((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const match = readyPattern.exec(out);
      if (match) {
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve(match);
      }
    };
    child.stdout.on('data', onData);
    void exited.then((code) => reject(new Error(`${script} exited with ${code} before it was ready:\n${out}`)));
  });
  ready.catch(() => undefined);
  return { child, exited, ready };
}

/** Stops a child with SIGTERM; resolves once it has exited (at once when it already had). */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * Resolves once `done()` holds, looking every 20 ms; rejects after
 * `timeoutMs` with `failure()`, which says how far it got.
 */
export async function waitUntil(done: () => boolean, failure: () => string, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${failure()} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The `q` quantile (0.5 for the median, 0.99 for p99) of a list sorted ascending. */
export const quantile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/**
 * A worker's drain rate a second: `count` sends, from its ready line (or its
 * first send if that came first: a small backlog can be sent before the line
 * is read) to its last send, `arrivals` being when each reached the fake.
 */
export function drainRate(count: number, readyAt: number, arrivals: Iterable<number>): number {
  const times = [...arrivals];
  // At least the clock's 1 ms: a small backlog can arrive within one millisecond.
  return (count / Math.max(1, Math.max(...times) - Math.min(readyAt, ...times))) * 1000;
}

/**
 * Runs `node dist/cli/COMMAND.js args` (a command as an operator runs it, on
 * embedded SQLite in `dataDir`) and resolves with its seconds and stdout; its
 * stderr is shown or, for a command that reports its progress there, not.
 */
export function runCommand(
  command: string,
  args: readonly string[],
  dataDir: string,
  stderr: 'inherit' | 'ignore' = 'inherit',
): Promise<{ seconds: number; out: string }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [path.join(root, `dist/cli/${command}.js`), ...args], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', stderr],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (code === 0) resolve({ seconds, out });
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${out}`));
    });
  });
}

/** The PostgreSQL the scripts use when one is given: BENCH_DATABASE_URL, else TEST_DATABASE_URL; '' for none. */
export const DATABASE_URL = process.env.BENCH_DATABASE_URL?.trim() || process.env.TEST_DATABASE_URL?.trim() || '';

/** Where a script's store lives: how openStore opens it, and how to remove it afterwards. */
export interface StoreLocation {
  readonly options: OpenStoreOptions & { dataDir: string };
  remove(): Promise<void>;
}

/** A fresh store: a new SQLite folder, or (with `databaseUrl`) a new PostgreSQL schema. */
export function createLocation(kind: 'sqlite' | 'postgres', databaseUrl = DATABASE_URL): StoreLocation {
  if (kind === 'sqlite') {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-bench-'));
    return {
      options: { dataDir },
      remove: () => Promise.resolve(rmSync(dataDir, { recursive: true, force: true })),
    };
  }
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  return {
    options: { databaseUrl, schema, dataDir: os.tmpdir() },
    remove: async () => {
      const client = new Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
}
