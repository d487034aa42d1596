// The store the server would use (DATABASE_URL, else DATA_DIR), for the
// command-line tools. A bad configuration exits with code 2, as the server does.
import { ConfigError, loadConfig } from '../config';
import { openStore, type SqlStore } from '../store';

export async function storeFromConfig(): Promise<SqlStore> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
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
