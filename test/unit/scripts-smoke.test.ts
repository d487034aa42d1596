// Every TypeScript script in scripts/ (the benchmarks and the soak) runs in its
// smoke mode (BENCH_SMOKE=1, read in scripts/bench-support.ts): the same
// path as a full run with tiny counts and durations, checking its own figures,
// so that a change the scripts depend on (a store method renamed, a module
// moved in dist/) fails `npm test` instead of the next benchmark run
// (docs/testing.md#the-scripts-smoke-mode).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

/**
 * Each script: run in smoke mode (with `env` on top), or covered by the run
 * of another one that imports or starts it. A new script needs its row here.
 */
const SCRIPTS: Record<
  string,
  { env: Record<string, string> } | { coveredBy: string; how: string } | { profileTool: true } | { testedBy: string }
> = {
  // Traces and the access policy on too, so that their parts and the OTLP receiver run.
  'bench.ts': { env: { BENCH_OTEL: '1', BENCH_POLICY: '1' } },
  'bench-answer-key.ts': { coveredBy: 'bench.ts', how: 'the key of the answers it captures' },
  'bench-baseline.ts': { coveredBy: 'bench.ts', how: 'the baseline it starts' },
  'bench-console.ts': { env: {} },
  'bench-delivery.ts': { env: {} },
  // Without TEST_DATABASE_URL, SQLite only.
  'bench-events.ts': { env: {} },
  'bench-h2-client.ts': { env: {} },
  'bench-import.ts': { coveredBy: 'bench.ts', how: 'its import case, benchImport' },
  // Under valgrind (about 40 s in smoke mode); without it on PATH, it says so and exits 0.
  'bench-instructions.ts': { env: {} },
  'bench-node-soap.ts': { coveredBy: 'bench.ts', how: "node-soap's own server its calls part starts" },
  'bench-otlp-receiver.ts': { coveredBy: 'bench.ts', how: 'the receiver it starts with BENCH_OTEL=1' },
  'bench-outbox-store.ts': { env: {} },
  'bench-runtime.ts': { env: {} },
  // Without TEST_DATABASE_URL it says it needs PostgreSQL and exits 0.
  'bench-scale-out.ts': { env: {} },
  'bench-seed.ts': { env: {} },
  'bench-shadow.ts': { env: {} },
  'bench-sqlite-driver.ts': { env: {} },
  'bench-support.ts': { coveredBy: 'bench.ts', how: 'every script imports it' },
  'soak.ts': { env: {} },
  // Tools for a CPU profile of the server (docs/benchmark.md#request-path): run below on a profile of their own.
  'cpu-profile-flame.ts': { profileTool: true },
  'cpu-profile-summary.ts': { profileTool: true },
  // The generator of docs/configuration.md, compiled by `npm run docs:config`: no benchmark.
  'config-reference.ts': { testedBy: 'test/unit/config-reference.test.ts' },
};

// How `npm run bench` runs a script: TypeScript through the tests' transpile-only hook (docs/benchmark.md#how-the-scripts-run).
const TS_HOOK = ['-r', path.join(root, 'test/delivery/support/register-ts.js')];

// A smoke run takes seconds; on a loaded machine, several times that.
const SCRIPT_TIMEOUT_MS = 90_000;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

/** Runs `node scripts/NAME` in smoke mode, in a process group of its own so that its services go with it on a timeout. */
function runSmoke(name: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TS_HOOK, path.join(root, 'scripts', name)], {
      cwd: root,
      env: { ...process.env, ...env, BENCH_SMOKE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      output += `\n(killed after ${SCRIPT_TIMEOUT_MS} ms)`;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, SCRIPT_TIMEOUT_MS);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}

describe('the scripts in smoke mode', () => {
  beforeAll(() => {
    // As `npm start` does (package.json's prestart): dist/ is built when a source is newer than its last build.
    const built = spawnSync(process.execPath, [path.join(root, 'scripts/ensure-built.js')], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (built.status !== 0) throw new Error(`scripts/ensure-built.js exited with ${built.status}`);
  }, 300_000);

  it('has a row for every TypeScript file in scripts/, and what covers a script that is not run is run', () => {
    const files = readdirSync(path.join(root, 'scripts')).filter((name) => name.endsWith('.ts'));
    expect(Object.keys(SCRIPTS).sort()).toEqual(files.sort());
    for (const row of Object.values(SCRIPTS)) {
      if ('coveredBy' in row) expect(SCRIPTS[row.coveredBy]).toHaveProperty('env');
      if ('testedBy' in row) expect(existsSync(path.join(root, row.testedBy))).toBe(true);
    }
  });

  it('cpu-profile-summary.ts and cpu-profile-flame.ts read a real CPU profile', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sns-profile-'));
    try {
      const busy = 'let x = 0; const end = Date.now() + 300; while (Date.now() < end) x += Math.sqrt(x + 1);';
      const made = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, '-e', busy], {
        encoding: 'utf8',
      });
      expect(made.status).toBe(0);
      const profile = path.join(dir, readdirSync(dir).find((name) => name.endsWith('.cpuprofile')) ?? 'none');
      const summary = spawnSync(
        process.execPath,
        [...TS_HOOK, path.join(root, 'scripts/cpu-profile-summary.ts'), profile, '100'],
        {
          encoding: 'utf8',
        },
      );
      expect([summary.status, summary.stderr]).toEqual([0, '']);
      expect(summary.stdout).toMatch(/µs/);
      const svg = path.join(dir, 'flame.svg');
      const flame = spawnSync(
        process.execPath,
        [...TS_HOOK, path.join(root, 'scripts/cpu-profile-flame.ts'), profile, svg],
        { encoding: 'utf8' },
      );
      expect([flame.status, flame.stderr]).toEqual([0, '']);
      expect(readFileSync(svg, 'utf8')).toMatch(/^<\?xml|^<svg/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const [name, row] of Object.entries(SCRIPTS)) {
    if (!('env' in row)) continue;
    it(
      `${name} runs its whole path with tiny counts and exits 0`,
      async () => {
        const run = await runSmoke(name, row.env);
        // The output's end on a failure: the script's own error says what broke.
        if (run.code !== 0 || run.signal !== null)
          throw new Error(`${name} exited with ${run.signal ?? run.code}:\n${run.output.slice(-4000)}`);
        expect(run.output).toContain('smoke mode (BENCH_SMOKE=1)');
      },
      SCRIPT_TIMEOUT_MS + 10_000,
    );
  }
});
