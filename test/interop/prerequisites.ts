// Makes sure each client's toolchain is on the machine, installing Debian's
// packages when something is missing: `apt-get update` once, then one
// `apt-get install` per client, so that one client's broken package cannot
// keep the others from running.
import type { InteropClient } from './clients';
import { MINUTE, failureOf, run } from './process';

/** Per client: null when ready, else why it cannot run. */
export type Readiness = ReadonlyMap<string, string | null>;

export async function ensureInstalled(
  clients: readonly InteropClient[],
  install: boolean,
  log: (line: string) => void,
): Promise<Readiness> {
  const readiness = new Map<string, string | null>();
  let updated: string | null | undefined;
  for (const client of clients) {
    let missing = await client.missing();
    let installProblem = '';
    if (missing.length > 0 && install) {
      log(
        `${client.name}: missing ${missing.join(', ')}; installing ${client.packages.join(' ')} with apt-get (takes minutes the first time)`,
      );
      updated ??= await aptGet(['update']);
      const problem = updated ?? (await aptGet(['install', '-y', ...client.packages]));
      if (problem !== null) installProblem = `; ${problem}`;
      missing = await client.missing();
    }
    readiness.set(
      client.name,
      missing.length === 0
        ? null
        : `not installed: ${missing.join(', ')} (Debian: apt-get install ${client.packages.join(' ')})${installProblem}`,
    );
  }
  return readiness;
}

async function aptGet(args: string[]): Promise<string | null> {
  const command = { file: 'apt-get', args, env: { DEBIAN_FRONTEND: 'noninteractive' } };
  return failureOf(command, await run(command, 30 * MINUTE));
}
