// npm run worker: the delivery worker without the HTTP server. Run as many as
// wanted against PostgreSQL (or beside the server on SQLite); each claims its
// own messages; with the console on, it also runs the console's roster
// imports. SIGTERM/SIGINT stop it cleanly. With METRICS_PORT set it
// serves its own /metrics there (deliveries, outbox depth, the process).
import './node-guard';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startConsoleImports } from '../console/import-runner';
import { DELIVERY_STOP_MS, startDelivery } from '../delivery';
import { createLogger } from '../log';
import { createMetrics } from '../metrics';
import { serveMetrics } from '../server/metrics-server';
import { openStore } from '../store';
import { startTracing, TRACES_FLUSH_MS } from '../trace';
import { answerHelpOrVersion } from './args';
import { loadConfigOrExit } from './load-config';
import { catchStopSignals } from '../shared/stop-signals';

const USAGE = `Usage: npm run worker

Runs the delivery worker without the HTTP server, against the store of
DATABASE_URL or DATA_DIR (docs/delivery.md); METRICS_PORT serves its /metrics.
SIGTERM or SIGINT stops it cleanly. Settings come from the environment
(docs/configuration.md).
`;

async function main(): Promise<void> {
  if (answerHelpOrVersion(process.argv.slice(2), USAGE)) return;
  const onStopSignal = catchStopSignals();
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel);
  // Loaded only when set (docs/operating.md#traces): each send's span, linked to the call that queued it.
  const tracer = config.tracing === null ? null : await startTracing({ ...config.tracing, logger });
  const store = await openStore({
    databaseUrl: config.databaseUrl ?? undefined,
    dataDir: config.dataDir,
    onBackgroundError: (error) => logger.warn({ err: error }, 'database connection error'),
    tracer,
  });
  const metrics = config.metricsPort === null ? null : createMetrics({ outbox: store.outbox });
  const delivery = startDelivery(config.delivery, store.outbox, logger, {
    observer: metrics?.delivery,
    eventObserver: metrics?.events,
    tracer,
  });
  // The console's roster imports run here too, off the nodes that answer the calls (docs/console.md#importing-a-roster).
  const imports = config.console.enabled
    ? startConsoleImports(
        { importMaxRows: config.console.importMaxRows, eventsAllowHttp: config.delivery.events.allowHttp },
        logger,
        store,
      )
    : null;
  let metricsServer: Server | null = null;
  if (metrics !== null && config.metricsPort !== null) {
    metricsServer = await serveMetrics(metrics, config.metricsPort, config.host, config.connections);
    logger.info({ metricsPort: (metricsServer.address() as AddressInfo).port }, 'metrics on their own port');
  }
  logger.info(
    { store: config.databaseUrl === null ? `sqlite (${config.dataDir})` : 'postgresql', pid: process.pid },
    'worker running',
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'worker shutting down');
    metricsServer?.close();
    void Promise.all([delivery.stop(DELIVERY_STOP_MS), imports?.stop(DELIVERY_STOP_MS)])
      .then(() => store.lifecycle.close())
      .then(() => tracer?.shutdown(Math.min(TRACES_FLUSH_MS, config.shutdownTimeoutMs)))
      .finally(() => process.exit(0));
  };
  onStopSignal(stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`The worker could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
