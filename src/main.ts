import './cli/node-guard';
import type { AddressInfo } from 'node:net';
import { PolicyError } from './access';
import { answerHelpOrVersion } from './cli/args';
import { ConfigError, loadConfig } from './config';
import { createLogger, type Logger } from './log';
import { serveMetrics } from './server';
import { trustedProxy } from './server/http-server';
import { createService, listen } from './service';
import { catchStopSignals } from './shared/stop-signals';

// Past SHUTDOWN_TIMEOUT_MS and this margin the process exits whatever is
// still running or writing (docs/operating.md#graceful-shutdown): room for the
// store's last second and the last log lines.
const HARD_EXIT_MARGIN_MS = 2000;
// The shutdown's last log lines get this long to reach the reader.
const LOG_FLUSH_MS = 1000;
// Exit codes: 0 a clean shutdown; 1 anything cut off, a second signal, or the hard deadline.
const EXIT_CUT_OFF = 1;

/** Resolves once the log destination has taken what is pending, or after `ms` whatever it does. */
function flushLogs(logger: Logger, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, Math.max(0, ms));
    logger.flush(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

const USAGE = `Usage: npm start   (node dist/main.js)

Runs the service: the ASMX endpoints, the admin API, /metrics, /healthz and
the delivery worker, against the store of DATABASE_URL or DATA_DIR. Settings
come from the environment (docs/configuration.md); operating it:
docs/operating.md. SIGTERM or SIGINT shuts it down gracefully; SIGHUP reloads
ACCESS_POLICY.
`;

async function main(): Promise<void> {
  if (answerHelpOrVersion(process.argv.slice(2), USAGE)) return;
  const onStopSignal = catchStopSignals();
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
  const logger = createLogger(config.logLevel, { format: config.logFormat });
  const service = await createService(config, logger);
  // Connections from a trusted proxy carry every client behind it: the per-address cap is left to the proxy.
  const connections = { ...config.connections, exemptFromAddressCap: trustedProxy(config.trustProxy) };
  const server = await listen(service.app, config.port, config.host, connections);
  service.shutdown.addServer(server);
  const { port } = server.address() as AddressInfo;
  logger.info(
    {
      port,
      store: config.databaseUrl === null ? `sqlite (${config.dataDir})` : 'postgresql',
      namespace: config.soapNamespace,
      adminApi: config.adminToken !== null,
      jsonBodies: config.jsonBodies,
    },
    `listening on http://localhost:${port}/ (try /NotificationNotes.asmx?wsdl)`,
  );
  if (config.metricsPort !== null) {
    const metricsServer = await serveMetrics(service.metrics, config.metricsPort, config.host, connections);
    service.shutdown.addServer(metricsServer);
    logger.info({ metricsPort: (metricsServer.address() as AddressInfo).port }, 'metrics on their own port');
  }

  const stop = (signal: string) => {
    if (service.shutdown.draining) {
      // A second Ctrl-C means "now": the operator has seen enough waiting. The line is written only if the destination takes it at once.
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(EXIT_CUT_OFF);
    }
    // Whatever the shutdown or the log destination does, the process ends by then; the timer needs no log to fire.
    const hardDeadline = Date.now() + config.shutdownTimeoutMs + HARD_EXIT_MARGIN_MS;
    setTimeout(() => process.exit(EXIT_CUT_OFF), hardDeadline - Date.now()).unref();
    void service.shutdown
      .run(signal)
      .then(async (report) => {
        await flushLogs(logger, Math.min(LOG_FLUSH_MS, hardDeadline - Date.now()));
        return report.clean ? 0 : EXIT_CUT_OFF;
      })
      .then((code) => process.exit(code));
  };
  // SIGHUP re-reads ACCESS_POLICY; calls under way finish under the policy they started with.
  process.on('SIGHUP', () => {
    if (service.access === null) logger.warn('SIGHUP: no ACCESS_POLICY is set, nothing to reload');
    else service.access.reload();
  });
  onStopSignal(stop);
}

/** The message and, when the store wrapped a driver error, that error too: an operator needs both. */
function describeStartFailure(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
  return `${err.message}${cause}`;
}

main().catch((err: unknown) => {
  // A policy that does not validate (or sets nothing) is a configuration error, as a bad setting is.
  if (err instanceof PolicyError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`The service could not start: ${describeStartFailure(err)}\n`);
  process.exit(1);
});
