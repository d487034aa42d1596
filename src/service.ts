// Builds the running service from its configuration: store, contract, operations, HTTP app.
import { createAccessControl, type AccessControl } from './access';
import { createBcryptPool } from './access/bcrypt-pool';
import { startAccessLimits } from './access/start-access-limits';
import { API_BASE as ADMIN_API_BASE, createAdminApi, type QueueNotification } from './admin';
import type { Config } from './config';
import { CONSOLE_BASE, consoleOff, createConsole } from './console';
import { consoleAllowList } from './console/allow-list';
import { startConsoleImports, type ImportRunner } from './console/import-runner';
import { loadServiceModel } from './contract';
import { DELIVERY_STOP_MS, startDelivery, type RunningDelivery } from './delivery';
import { checkReadiness, healthRoutes, type Readiness } from './health';
import { createShutdown, type Shutdown } from './lifecycle';
import type { Logger } from './log';
import { createMetrics, type Metrics } from './metrics';
import { readIgnoreFile } from './legacy-kit/compare';
import { createShadow, recordRequests } from './legacy-kit/shadow';
import { chainObservers, observeRequests, type RequestObserver } from './observe';
import { createOperations } from './operations';
import { notificationQueue } from './operations/queue-notification';
import { createApp, type App, type OperatorRoute } from './server';
import type { OutboxChannel } from './shared/outbox-channel';
import { loadDemoData, openStore, type OpenedStore } from './store';
import { startTracing, TRACES_FLUSH_MS, type Tracer } from './trace';

// Longest answer a shadow call compares, ours or the legacy's: a list of thousands of students is a few MiB.
const SHADOW_MAX_ANSWER_BYTES = 16 * 1024 * 1024;

// Longest a readiness check waits for the store.
const READINESS_TIMEOUT_MS = 2000;

export interface Service {
  readonly app: App;
  readonly store: OpenedStore;
  readonly metrics: Metrics;
  /** The delivery worker in this process (WORKER=true), or null. */
  readonly delivery: RunningDelivery | null;
  /**
   * The graceful shutdown sequence, holding every stop step the service
   * registered as it started its parts: add the listening servers to it.
   */
  readonly shutdown: Shutdown;
  /** The access policy (ACCESS_POLICY), or null when every operation is open; `reload()` on SIGHUP. */
  readonly access: AccessControl | null;
  /** Runs the shutdown sequence (tests; the server runs `shutdown` on a signal). */
  close(): Promise<void>;
}

export interface ServiceParts {
  /** A store opened elsewhere (tests); the service then leaves closing it to the caller. */
  readonly store?: OpenedStore;
  /**
   * Tracing started elsewhere (tests, with the store they opened under it);
   * the service then leaves shutting it down to the caller. Absent: started
   * here when OTEL_EXPORTER_OTLP_ENDPOINT is set.
   */
  readonly tracer?: Tracer | null;
  /**
   * Told the name of each part as soon as it started and its stop step is
   * registered; a throw fails the start there (test/ops/start-unwind.test.ts
   * fails it at every step in turn).
   */
  readonly onStarted?: (step: string) => void;
}

// How much sooner than the shutdown's own cut-off (SHUTDOWN_TIMEOUT_MS) the last export of the spans gives up.
const TRACES_FLUSH_MARGIN_MS = 100;

/**
 * Registers a part that just started with the shutdown: the one place a stop
 * step is named. The sequence runs them in reverse, so each part stops before
 * what it was built on (the worker before the store, the store before the traces).
 */
type Own = (step: string, stop: (budgetMs: number) => Promise<void> | void) => void;

export async function createService(config: Config, logger: Logger, parts: ServiceParts = {}): Promise<Service> {
  const shutdown = createShutdown({ logger, timeoutMs: config.shutdownTimeoutMs });
  const own: Own = (step, stop) => {
    shutdown.register(step, stop);
    parts.onStarted?.(step);
  };
  try {
    return await startParts(config, logger, parts, shutdown, own);
  } catch (err) {
    // A start that failed half-way stops exactly what it had started, newest first.
    await shutdown.run('start-up failed');
    throw err;
  }
}

async function startParts(
  config: Config,
  logger: Logger,
  parts: ServiceParts,
  shutdown: Shutdown,
  own: Own,
): Promise<Service> {
  const tracer = await startOwnTracing(config, logger, parts, own);
  const store = await openOwnStore(config, logger, parts, tracer, own);
  const endpoints = await loadServiceModel(config.soapNamespace);
  // Readiness is known once the routes below are; the gauge asks through this.
  let readiness: (() => Promise<Readiness>) | null = null;
  const metrics = createMetrics({
    outbox: store.outbox,
    readiness: () => (readiness === null ? Promise.reject(new Error('not yet')) : readiness()),
    authCodes: { source: store.outbox, limits: config.delivery.authCodeLimits },
  });
  const access = startAccess(config, logger, store, metrics, own);
  let delivery: RunningDelivery | null = null;
  const wakeWorker = (channel?: OutboxChannel) => {
    delivery?.worker.notify(channel);
    delivery?.events?.notify();
  };
  // The operations are given what they read and what they queue, nothing else.
  const operationStore = { records: store.records, outbox: store.outbox };
  const rules = {
    phone: { defaultRegion: config.smsDefaultRegion, allowedCountries: config.smsAllowedCountries },
    templates: config.delivery.notificationTemplates,
    urgentTypes: config.delivery.urgentTypes,
    authCodeLimits: config.delivery.authCodeLimits,
    onQueued: wakeWorker,
    onRefusalNotRecorded: (error: unknown) =>
      logger.warn({ err: error }, 'a refused call could not be recorded for the console; it was refused all the same'),
  };
  const operations = createOperations(operationStore, rules);

  // The worker starts last; until then (and if it stops) readiness says so.
  const worker = config.delivery.worker
    ? {
        health: () => delivery?.worker.health() ?? { running: false, startedAt: null, lastClaimAt: null },
        oldestDueAt: () => store.outbox.oldestDueAt(),
        stallMs: config.delivery.stallSeconds * 1000,
      }
    : undefined;
  const readinessOptions = {
    store: store.lifecycle,
    timeoutMs: READINESS_TIMEOUT_MS,
    draining: () => shutdown.draining,
    worker,
  };
  readiness = () => checkReadiness(readinessOptions);
  // The roster import's jobs run where the delivery worker runs (docs/console.md#importing-a-roster).
  let imports: ImportRunner | null = null;
  const routes = operatorRoutes(
    config,
    logger,
    store,
    metrics,
    { health: healthRoutes(readinessOptions), queueNotification: notificationQueue({ store: operationStore, rules }) },
    own,
    { onResent: wakeWorker, onImportQueued: () => imports?.notify() },
  );
  const observers = startObservers(config, logger, metrics, tracer, own);

  const app = createApp({
    endpoints,
    operations,
    logger,
    bodyLimit: config.bodyLimit,
    maxQueryStringLength: config.maxQueryStringLength,
    xmlMaxDepth: config.xmlMaxDepth,
    trustProxy: config.trustProxy,
    operationTimeoutMs: config.operationTimeoutMs,
    helpPages: config.helpPages,
    jsonBodies: config.jsonBodies,
    observe: chainObservers(observers),
    keepBodies: observers.length > 1,
    routes,
    access: access ?? undefined,
    publicBaseUrl: config.publicBaseUrl,
  });
  if (config.delivery.worker) {
    const running = startDelivery(config.delivery, store.outbox, logger, {
      observer: metrics.delivery,
      eventObserver: metrics.events,
      tracer,
    });
    delivery = running;
    // Started after the store, so it stops first: no claim after the store closed.
    own('delivery worker', () => running.stop(DELIVERY_STOP_MS));
    if (config.console.enabled) {
      const runner = startConsoleImports(
        { importMaxRows: config.console.importMaxRows, eventsAllowHttp: config.delivery.events.allowHttp },
        logger,
        store,
      );
      imports = runner;
      own('console import slot', (budgetMs) => runner.stop(budgetMs));
    }
  }
  return {
    app,
    store,
    metrics,
    shutdown,
    delivery,
    access,
    async close() {
      await shutdown.run('closed');
    },
  };
}

// Loaded only when set: without it nothing of OpenTelemetry runs (docs/operating.md#traces).
async function startOwnTracing(config: Config, logger: Logger, parts: ServiceParts, own: Own): Promise<Tracer | null> {
  if (parts.tracer !== undefined) return parts.tracer;
  if (config.tracing === null) return null;
  const tracer = await startTracing({ ...config.tracing, logger });
  // Started first, so it stops last: the spans of the worker's and the store's last moments go too.
  own('traces', (budgetMs) =>
    tracer.shutdown(Math.max(0, Math.min(TRACES_FLUSH_MS, budgetMs - TRACES_FLUSH_MARGIN_MS))),
  );
  return tracer;
}

async function openOwnStore(
  config: Config,
  logger: Logger,
  parts: ServiceParts,
  tracer: Tracer | null,
  own: Own,
): Promise<OpenedStore> {
  if (parts.store !== undefined) return parts.store;
  const store = await openStore({
    databaseUrl: config.databaseUrl ?? undefined,
    dataDir: config.dataDir,
    groupCommitMs: config.groupCommitMs,
    tracer,
  });
  own('store', () => store.lifecycle.close());
  if (config.databaseUrl === null && config.demoData && (await store.dataSet.isEmpty())) {
    const counts = await loadDemoData(store.dataSet);
    logger.info({ counts }, 'empty embedded store: demo data loaded (DEMO_DATA=false turns this off)');
  }
  return store;
}

// With a policy: the gate, and the budgets, the enumeration guard and the
// audit trail it consults (docs/access-limits.md). Without one there is no
// gate at all and calls cost what they always did: the audit trail's
// writes would cost a small call about a third of its speed
// (docs/benchmark.md); an open default in a policy gives the trail
// without restricting anyone.
function startAccess(
  config: Config,
  logger: Logger,
  store: OpenedStore,
  metrics: Metrics,
  own: Own,
): AccessControl | null {
  if (config.accessPolicy === null) {
    logger.warn(
      'ACCESS_POLICY is not set: every operation is open to every caller (docs/security.md says how to lock the service down)',
    );
    return null;
  }
  const limits = startAccessLimits({
    store: store.access,
    logger,
    observer: metrics.access,
    auditRetentionDays: config.auditRetentionDays,
    syncIntervalMs: config.accessSyncIntervalMs,
  });
  // Started after the store, so they stop (and write what they hold) before it closes.
  own('access limits', () => limits.stop());
  const bcrypt = createBcryptPool({ threads: config.bcryptThreads ?? undefined });
  own('bcrypt threads', () => bcrypt.close());
  const access = createAccessControl({
    policyFile: config.accessPolicy,
    logger,
    ...limits,
    onRefused: (reason) => metrics.access.refused(reason),
    bcrypt,
  });
  logger.info(
    { file: config.accessPolicy, users: access.policy.users.size, ...access.policy.exposure },
    'access policy in force',
  );
  return access;
}

// The operators' routes beside the service's own: health, the admin API, the console, /metrics.
function operatorRoutes(
  config: Config,
  logger: Logger,
  store: OpenedStore,
  metrics: Metrics,
  { health, queueNotification }: { health: OperatorRoute['handler']; queueNotification: QueueNotification },
  own: Own,
  wake: { readonly onResent: () => void; readonly onImportQueued: () => void },
): OperatorRoute[] {
  const routes: OperatorRoute[] = [
    { path: '/healthz', handler: health },
    { path: '/readyz', handler: health },
    {
      path: `${ADMIN_API_BASE}/`,
      handler: createAdminApi({
        store: store.admin,
        token: config.adminToken,
        logger,
        bodyLimit: config.bodyLimit,
        eventsAllowHttp: config.delivery.events.allowHttp,
        queueNotification,
      }),
    },
  ];
  let consoleHandler: OperatorRoute['handler'] = consoleOff;
  if (config.console.enabled) {
    // Its own thread for passwords: a flood of Basic logins on the SOAP side does not lock operators out.
    const consoleBcrypt = createBcryptPool({ threads: 1 });
    own('console bcrypt thread', () => consoleBcrypt.close());
    consoleHandler = createConsole({
      stores: { console: store.console, admin: store.admin, access: store.access },
      settings: {
        secureCookies: config.publicBaseUrl?.startsWith('https:') ?? false,
        idleMs: config.console.sessionIdleMinutes * 60_000,
        maxAgeMs: config.console.sessionMaxHours * 3_600_000,
        allow: consoleAllowList(config.console.allow),
        timeZone: config.console.timeZone,
        eventsAllowHttp: config.delivery.events.allowHttp,
      },
      logger,
      bcrypt: consoleBcrypt,
      ...wake,
    });
  }
  routes.push({ path: CONSOLE_BASE, handler: consoleHandler }, { path: `${CONSOLE_BASE}/`, handler: consoleHandler });
  // With METRICS_PORT set, main.ts serves /metrics there and only there.
  if (config.metricsPort === null) routes.push({ path: '/metrics', handler: metrics.route });
  return routes;
}

// After the answer, beside the access log: the shadow calls and the request recording (docs/migration.md).
function startObservers(
  config: Config,
  logger: Logger,
  metrics: Metrics,
  tracer: Tracer | null,
  own: Own,
): RequestObserver[] {
  const observers: RequestObserver[] = [observeRequests({ logger, metrics: metrics.requests, tracer })];
  if (config.shadow !== null) {
    const rules = config.shadow.ignoreFile === null ? [] : readIgnoreFile(config.shadow.ignoreFile);
    const shadow = createShadow({
      ...config.shadow,
      rules,
      maxAnswerBytes: SHADOW_MAX_ANSWER_BYTES,
      logger,
      metrics: metrics.shadow,
    });
    own('shadow calls', () => shadow.close());
    observers.push(shadow.observe);
    logger.info(
      {
        sample: config.shadow.sample,
        concurrency: config.shadow.concurrency,
        maxPerSecond: config.shadow.maxPerSecond,
      },
      'shadow calls to the legacy service on (SHADOW_URL)',
    );
  }
  if (config.recordRequests !== null) {
    const recorder = recordRequests({ ...config.recordRequests, logger, metrics: metrics.recording });
    own('request recording', () => recorder.close());
    observers.push(recorder.observe);
    logger.info({ sample: config.recordRequests.sample }, 'recording read calls (RECORD_REQUESTS)');
  }
  return observers;
}

export { listen } from './server/http-server';
