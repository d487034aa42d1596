// Programs from the machine (promtool, prometheus, systemd-analyze) that the
// deploy tests run. Missing, a test is skipped and says so, except under CI,
// where .ci/run installs them and their absence is a failure.
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** The program's path: `$ENV_NAME` when set, else the first on PATH; null when there is none. */
export function findTool(name: string, envName?: string): string | null {
  const given = envName === undefined ? undefined : process.env[envName];
  const candidates =
    given !== undefined && given !== ''
      ? [given]
      : (process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, name));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * `describe` when every tool is there; otherwise, outside CI, a skipped one
 * with the reason printed, and under CI (CI=true) a failing test: CI must run
 * these checks, not skip them.
 */
export function describeWithTools(
  title: string,
  tools: Readonly<Record<string, string | null>>,
  install: string,
  body: () => void,
): void {
  const missing = Object.entries(tools)
    .filter(([, found]) => found === null)
    .map(([name]) => name);
  if (missing.length === 0) {
    describe(title, body);
    return;
  }
  const why = `${missing.join(', ')} not found (${install})`;
  if (process.env.CI === 'true') {
    describe(title, () => {
      it('has its tools', () => {
        throw new Error(`${why}: CI must run this suite`);
      });
    });
    return;
  }
  console.warn(`SKIPPED "${title}": ${why}`);
  describeOrSkip(why, title, body);
}

/**
 * `describe(title, body)`, or when `why` is given a suite of one skipped test
 * that says why. Not a skipped describe: jest runs the body of one all the
 * same, with whatever it does at load time.
 */
export function describeOrSkip(why: string | null, title: string, body: () => void): void {
  if (why === null) describe(title, body);
  else
    describe(title, () => {
      it.skip(`skipped: ${why}`, () => undefined);
    });
}
