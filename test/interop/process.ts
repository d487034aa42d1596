// Runs the tools and drivers as child processes: output captured, a time
// limit, and never a throw, so that one client's trouble stays a result.
import { spawn } from 'node:child_process';

export const MINUTE = 60_000;

export interface Command {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
}

export interface Completed {
  /** Exit code; null when the process could not start or was killed. */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Why it did not run to the end: it could not start, or hit the time limit. */
  readonly problem?: string;
}

export function run(command: Command, timeoutMs: number): Promise<Completed> {
  return new Promise((resolve) => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let problem: string | undefined;
    const child = spawn(command.file, command.args, {
      cwd: command.cwd,
      env: { ...process.env, ...command.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => {
      problem = `${command.file} did not finish within ${timeoutMs / 1000} s`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (err) => {
      problem = `${command.file} could not be started: ${err.message}`;
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        code: problem === undefined ? code : null,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        problem,
      });
    });
  });
}

/** What went wrong, for a report: the problem or exit code and the end of the tool's own output. */
export function failureOf(command: Command, completed: Completed): string | null {
  if (completed.problem === undefined && completed.code === 0) return null;
  const what = completed.problem ?? `${command.file} exited with code ${completed.code}`;
  const output = `${completed.stdout}\n${completed.stderr}`.trim().split('\n').slice(-15).join('\n');
  return output === '' ? what : `${what}:\n${output}`;
}

/** Runs `work` over `items` with at most `limit` at a time, results in item order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
