// The store the server would use (DATABASE_URL, else DATA_DIR), for the
// command-line tools. A bad configuration exits with code 2, as the server does.
import { openStore, type OpenedStore } from '../store';
import { loadConfigOrExit } from './load-config';
import type { Config } from '../config';

export async function storeFromConfig(config: Config = loadConfigOrExit()): Promise<OpenedStore> {
  return openStore({ databaseUrl: config.databaseUrl ?? undefined, dataDir: config.dataDir });
}

/** Runs a command's main, printing an unexpected failure as one line. */
export function runCommand(main: () => Promise<number>): void {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
