// npm run worker: the delivery worker without the HTTP server. Run as many as
// wanted against PostgreSQL (or beside the server on SQLite); each claims its
// own messages. SIGTERM/SIGINT stop it cleanly.
import { startDelivery } from '../delivery';
import { createLogger } from '../log';
import { DELIVERY_STOP_MS } from '../service';
import { openStore } from '../store';
import { loadConfigOrExit } from './load-config';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel);
  const store = await openStore({
    databaseUrl: config.databaseUrl ?? undefined,
    dataDir: config.dataDir,
    onBackgroundError: (error) => logger.warn({ err: error }, 'database connection error'),
  });
  const delivery = startDelivery(config.delivery, store, logger);
  logger.info({ store: config.databaseUrl === null ? `sqlite (${config.dataDir})` : 'postgresql', pid: process.pid }, 'worker running');

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'worker shutting down');
    void delivery
      .stop(DELIVERY_STOP_MS)
      .then(() => store.close())
      .finally(() => process.exit(0));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`The worker could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
