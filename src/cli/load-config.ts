import { ConfigError, loadConfig, type Config } from '../config';

/** The configuration, or exit code 2 with the problems on stderr (as the server does). */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}
