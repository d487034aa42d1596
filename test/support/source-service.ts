// The service as its entry point starts it, run from the TypeScript sources
// through the tests' loader (no build needed): for tests of what only a real
// process shows (signals, exit codes, its stdout).
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import path from 'node:path';
import type { Readable } from 'node:stream';

export const ROOT = path.resolve(__dirname, '../..');

/**
 * `src/main.ts` on a loopback port of its choosing, without the worker,
 * logging JSON to stdout; `env` adds to or overrides that, and `preload`
 * names scripts to run first (`node -r`). stdout and stderr
 * are pipes: a test that does not read one must resume it.
 */
export function spawnSourceService(
  env: Record<string, string>,
  options: { readonly preload?: readonly string[] } = {},
): ChildProcessByStdio<null, Readable, Readable> {
  const preload = (options.preload ?? []).flatMap((file) => ['-r', file]);
  return spawn(
    process.execPath,
    [...preload, '-r', path.join(ROOT, 'test/delivery/support/register-ts.js'), path.join(ROOT, 'src/main.ts')],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', WORKER: 'false', LOG_FORMAT: 'json', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}
