// Builds the running service from its configuration: store, contract, operations, HTTP app.
import { createAccessControl, type AccessControl } from './access';
import { createBcryptPool } from './access/bcrypt-pool';
import { startAccessLimits, type AccessLimits } from './access/start-access-limits';
import { API_BASE as ADMIN_API_BASE, createAdminApi } from './admin';
import type { Config } from './config';
import { CONSOLE_BASE, consoleOff, createConsole } from './console';
import { consoleAllowList } from './console/allow-list';
import { loadServiceModel } from './contract';
import { DELIVERY_STOP_MS, startDelivery, type RunningDelivery } from './delivery';
import { checkReadiness, healthRoutes, type Readiness } from './health';
import { createShutdown, type Shutdown } from './lifecycle';
import type { Logger } from './log';
import { createMetrics, type Metrics } from './metrics';
import { readIgnoreFile } from './migration';
import { chainObservers, createShadow, observeRequests, recordRequests, type RequestObserver } from './observe';
import { createOperations } from './operations';
import { createApp, type App, type OperatorRoute } from './server';
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
   * The graceful shutdown sequence: add the listening servers, register
   * whatever must stop before the store closes (the delivery worker).
   */
  readonly shutdown: Shutdown;
  /** The access policy (ACCESS_POLICY), or null when every operation is open; `reload()` on SIGHUP. */
  readonly access: AccessControl | null;
  /** Closes the store if this service opened it (tests; the server uses `shutdown`). */
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
}

// How much sooner than the shutdown's own cut-off (SHUTDOWN_TIMEOUT_MS) the last export of the spans gives up.
const TRACES_FLUSH_MARGIN_MS = 100;

export async function createService(config: Config, logger: Logger, parts: ServiceParts = {}): Promise<Service> {
  const ownsTracer = parts.tracer === undefined;
  // Loaded only when set: without it nothing of OpenTelemetry runs (docs/operating.md#traces).
  const tracer =
    parts.tracer !== undefined
      ? parts.tracer
      : config.tracing === null
        ? null
        : await startTracing({ ...config.tracing, logger });
  const stopTracing = (ms: number) => (ownsTracer && tracer !== null ? tracer.shutdown(ms) : Promise.resolve());
  const ownsStore = parts.store === undefined;
  let store: OpenedStore;
  try {
    store =
      parts.store ??
      (await openStore({
        databaseUrl: config.databaseUrl ?? undefined,
        dataDir: config.dataDir,
        groupCommitMs: config.groupCommitMs,
        tracer,
      }));
  } catch (err) {
    await stopTracing(0);
    throw err;
  }
  try {
    if (ownsStore && config.databaseUrl === null && config.demoData && (await store.dataSet.isEmpty())) {
      const counts = await loadDemoData(store.dataSet);
      logger.info({ counts }, 'empty embedded store: demo data loaded (DEMO_DATA=false turns this off)');
    }
    const endpoints = await loadServiceModel(config.soapNamespace);
    // Readiness is known once the routes below are; the gauge asks through this.
    let readiness: (() => Promise<Readiness>) | null = null;
    const metrics = createMetrics({
      outbox: store.outbox,
      readiness: () => (readiness === null ? Promise.reject(new Error('not yet')) : readiness()),
      authCodes: { source: store.outbox, limits: config.delivery.authCodeLimits },
    });
    // With a policy: the gate, and the budgets, the enumeration guard and the
    // audit trail it consults (docs/access-limits.md). Without one there is no
    // gate at all and calls cost what they always did: the audit trail's
    // writes would cost a small call about a third of its speed
    // (docs/benchmark.md); an open default in a policy gives the trail
    // without restricting anyone.
    let access: AccessControl | null = null;
    let limits: AccessLimits | null = null;
    if (config.accessPolicy === null) {
      logger.warn(
        'ACCESS_POLICY is not set: every operation is open to every caller (docs/security.md says how to lock the service down)',
      );
    } else {
      limits = startAccessLimits({
        store: store.access,
        logger,
        observer: metrics.access,
        auditRetentionDays: config.auditRetentionDays,
        syncIntervalMs: config.accessSyncIntervalMs,
      });
      try {
        access = createAccessControl({
          policyFile: config.accessPolicy,
          logger,
          ...limits,
          onRefused: (reason) => metrics.access.refused(reason),
          bcrypt: createBcryptPool({ threads: config.bcryptThreads ?? undefined }),
        });
      } catch (err) {
        await limits.stop();
        throw err;
      }
      logger.info(
        { file: config.accessPolicy, users: access.policy.users.size, ...access.policy.exposure },
        'access policy in force',
      );
    }
    let delivery: RunningDelivery | null = null;
    let closeConsole: () => Promise<void> = async () => {};
    // The operations are given what they read and what they queue, nothing else.
    const operationStore = { records: store.records, outbox: store.outbox };
    const operations = createOperations(operationStore, {
      phone: { defaultRegion: config.smsDefaultRegion, allowedCountries: config.smsAllowedCountries },
      templates: config.delivery.notificationTemplates,
      authCodeLimits: config.delivery.authCodeLimits,
      onQueued: () => {
        delivery?.worker.notify();
        delivery?.events?.notify();
      },
    });
    const shutdown = createShutdown({ logger, timeoutMs: config.shutdownTimeoutMs });
    // Registered first, so it runs last: the spans of the worker's and the store's last moments go too.
    if (ownsTracer && tracer !== null)
      shutdown.register('traces', (budgetMs) =>
        stopTracing(Math.max(0, Math.min(TRACES_FLUSH_MS, budgetMs - TRACES_FLUSH_MARGIN_MS))),
      );
    if (ownsStore) shutdown.register('store', () => store.lifecycle.close());
    // Registered after the store, so they stop (and write what they hold) before it closes.
    const runningLimits = limits;
    if (runningLimits !== null) shutdown.register('access limits', () => runningLimits.stop());
    const runningAccess = access;
    if (runningAccess !== null) shutdown.register('bcrypt threads', () => runningAccess.close());

    // The worker starts below; until then (and if it stops) readiness says so.
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
    const health = healthRoutes(readinessOptions);
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
        }),
      },
    ];
    if (config.console.enabled) {
      // Its own thread for passwords: a flood of Basic logins on the SOAP side does not lock operators out.
      const consoleBcrypt = createBcryptPool({ threads: 1 });
      shutdown.register('console bcrypt thread', () => consoleBcrypt.close());
      closeConsole = () => consoleBcrypt.close();
      const handler = createConsole({
        stores: { console: store.console, admin: store.admin, access: store.access, import: store.dataSet },
        settings: {
          secureCookies: config.publicBaseUrl?.startsWith('https:') ?? false,
          idleMs: config.console.sessionIdleMinutes * 60_000,
          maxAgeMs: config.console.sessionMaxHours * 3_600_000,
          allow: consoleAllowList(config.console.allow),
          importMaxRows: config.console.importMaxRows,
        },
        logger,
        bcrypt: consoleBcrypt,
        onResent: () => delivery?.worker.notify(),
      });
      routes.push({ path: CONSOLE_BASE, handler }, { path: `${CONSOLE_BASE}/`, handler });
    } else {
      routes.push({ path: CONSOLE_BASE, handler: consoleOff }, { path: `${CONSOLE_BASE}/`, handler: consoleOff });
    }
    // With METRICS_PORT set, main.ts serves /metrics there and only there.
    if (config.metricsPort === null) routes.push({ path: '/metrics', handler: metrics.route });

    // After the answer, beside the access log: the shadow calls and the request recording (docs/migration.md).
    const observers: RequestObserver[] = [observeRequests({ logger, metrics: metrics.requests, tracer })];
    const afterAnswer: (() => Promise<void>)[] = [];
    if (config.shadow !== null) {
      const shadow = createShadow({
        ...config.shadow,
        rules: config.shadow.ignoreFile === null ? [] : readIgnoreFile(config.shadow.ignoreFile),
        maxAnswerBytes: SHADOW_MAX_ANSWER_BYTES,
        logger,
        metrics: metrics.shadow,
      });
      observers.push(shadow.observe);
      shutdown.register('shadow calls', () => shadow.close());
      afterAnswer.push(() => shadow.close());
      logger.info(
        { sample: config.shadow.sample, concurrency: config.shadow.concurrency },
        'shadow calls to the legacy service on (SHADOW_URL)',
      );
    }
    if (config.recordRequests !== null) {
      const recorder = recordRequests({ ...config.recordRequests, logger, metrics: metrics.recording });
      observers.push(recorder.observe);
      shutdown.register('request recording', () => recorder.close());
      afterAnswer.push(() => recorder.close());
      logger.info({ sample: config.recordRequests.sample }, 'recording read calls (RECORD_REQUESTS)');
    }

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
      // Registered after the store, so it stops first: no claim after the store closed.
      shutdown.register('delivery worker', () => running.stop(DELIVERY_STOP_MS));
    }
    const running = delivery;
    return {
      app,
      store,
      metrics,
      shutdown,
      delivery: running,
      access,
      async close() {
        for (const stop of afterAnswer) await stop();
        await running?.stop(DELIVERY_STOP_MS);
        await runningLimits?.stop();
        await runningAccess?.close();
        await closeConsole();
        if (ownsStore) await store.lifecycle.close();
        await stopTracing(TRACES_FLUSH_MS);
      },
    };
  } catch (err) {
    if (ownsStore) await store.lifecycle.close();
    await stopTracing(0);
    throw err;
  }
}

export { listen } from './server/http-server';
