// The built service (`node dist/main.js`) as a child process on a free
// loopback port, as it runs in production; killed and started again at will.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { builtMain, portWhenListening } from '../../support/built-service';

export const REPO_ROOT = path.resolve(__dirname, '../../..');
const MAIN = builtMain(REPO_ROOT);
const START_TIMEOUT_MS = 60_000;
/** Log kept for a failure's message: the last lines are the ones that explain it. */
const KEPT_LOG_LINES = 200;

export interface ServiceProcess {
  readonly port: number;
  readonly child: ChildProcess;
  /** Resolves with the exit code, or the signal's name when killed. */
  readonly exited: Promise<number | string>;
  /** Still running (not exited, not killed). */
  alive(): boolean;
  /** The last log lines (stdout and stderr). */
  log(): string;
  /** Log lines at level error or fatal (pino levels 50, 60) seen so far. */
  errorLines(): string[];
  /** SIGTERM and wait; SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL (kill -9) and wait for the exit. */
  kill(): Promise<void>;
}

/**
 * Starts `node dist/main.js` with `env` over a minimal environment (PATH,
 * PORT=0, HOST=127.0.0.1, DEMO_DATA=false) and resolves once it listens.
 */
export async function startService(env: Record<string, string>, nodeFlags: string[] = []): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [...nodeFlags, MAIN], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      DEMO_DATA: 'false',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const errors: string[] = [];
  const keep = (line: string) => {
    lines.push(line);
    if (lines.length > KEPT_LOG_LINES) lines.shift();
    if (/"level":(50|60)\b/.test(line)) errors.push(line);
  };
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', keep);
  const port = await portWhenListening(child, {
    timeoutMs: START_TIMEOUT_MS,
    onLine: keep,
    explain: () => `:\n${lines.join('\n')}`,
  });
  let running = true;
  void exited.then(() => (running = false));
  const kill = async () => {
    if (running) child.kill('SIGKILL');
    await exited;
  };
  return {
    port,
    child,
    exited,
    alive: () => running,
    log: () => lines.join('\n'),
    errorLines: () => [...errors],
    kill,
    async stop(graceMs = 15_000) {
      if (!running) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => void kill(), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
