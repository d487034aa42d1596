// `npm run worker` as a child process, straight from the TypeScript sources.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { TestStore } from '../../support/stores';

const ROOT = path.resolve(__dirname, '../../..');

export interface WorkerProcess {
  readonly child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** Resolves once the worker logged that it runs (needs LOG_LEVEL info or lower). */
  readonly ready: Promise<void>;
  /** stdout and stderr so far. */
  output(): string;
}

/** The environment that points a worker process (or a service) at the test's store, or a benchmark's. */
export function storeEnvironment(ctx: { readonly options: TestStore['options'] }): Record<string, string> {
  const { databaseUrl, schema, dataDir } = ctx.options;
  if (databaseUrl === undefined) return { DATA_DIR: dataDir, DATABASE_URL: '' };
  const separator = databaseUrl.includes('?') ? '&' : '?';
  return {
    DATABASE_URL: `${databaseUrl}${separator}options=${encodeURIComponent(`-c search_path=${schema ?? 'public'}`)}`,
    DATA_DIR: dataDir,
  };
}

/**
 * Kills `worker` with SIGKILL once `moment` resolves (a crash mid-batch);
 * rejects, with its output, if it exited on its own before. Resolves with its
 * exit code: null, killed by the signal.
 */
export async function killWhen(worker: WorkerProcess, moment: Promise<void>): Promise<number | null> {
  await Promise.race([
    moment,
    worker.exited.then(() => Promise.reject(new Error(`the worker exited early:\n${worker.output()}`))),
  ]);
  worker.child.kill('SIGKILL');
  return worker.exited;
}

export function spawnWorker(env: Record<string, string>): WorkerProcess {
  return spawnCli('worker', [], env);
}

/** A command of src/cli (`worker`, `outbox`) with its arguments. */
export function spawnCli(command: string, args: string[], env: Record<string, string>): WorkerProcess {
  const child = spawn(
    process.execPath,
    ['-r', path.join(__dirname, 'register-ts.js'), path.join(ROOT, `src/cli/${command}.ts`), ...args],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (output.includes('"msg":"worker running"')) markReady();
  });
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const readyOrExited = Promise.race([
    ready,
    exited.then(() => Promise.reject(new Error(`the process exited before it ran:\n${output}`))),
  ]);
  // Only worker tests wait for readiness; a command that just exits is no error.
  readyOrExited.catch(() => undefined);
  return { child, exited, ready: readyOrExited, output: () => output };
}
