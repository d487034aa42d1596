import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig } from './config';
import { createLogger } from './log';
import { createService, DELIVERY_STOP_MS, listen } from './service';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  const service = await createService(config, logger);
  const server = await listen(service.app, config.port, config.host);
  const { port } = server.address() as AddressInfo;
  logger.info(
    { port, store: config.databaseUrl === null ? `sqlite (${config.dataDir})` : 'postgresql', namespace: config.soapNamespace },
    `listening on http://localhost:${port}/ (try /NotificationNotes.asmx?wsdl)`,
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Stop claiming at once; sends under way get a few seconds while requests finish.
    void service.delivery?.stop(DELIVERY_STOP_MS);
    const force = setTimeout(() => process.exit(1), 10000).unref();
    server.close(() => {
      void service.close().finally(() => {
        clearTimeout(force);
        process.exit(0);
      });
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`The service could not start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
