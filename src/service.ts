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
import { healthRoutes } from './health';
import { createShutdown, type Shutdown } from './lifecycle';
import type { Logger } from './log';
import { createMetrics, type Metrics } from './metrics';
import { observeRequests } from './observe';
import { createOperations } from './operations';
import { createApp, type App, type OperatorRoute } from './server';
import { loadDemoData, openStore, type OpenedStore } from './store';

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
}

export async function createService(config: Config, logger: Logger, parts: ServiceParts = {}): Promise<Service> {
  const ownsStore = parts.store === undefined;
  const store =
    parts.store ??
    (await openStore({
      databaseUrl: config.databaseUrl ?? undefined,
      dataDir: config.dataDir,
      groupCommitMs: config.groupCommitMs,
    }));
  try {
    if (ownsStore && config.databaseUrl === null && config.demoData && (await store.dataSet.isEmpty())) {
      const counts = await loadDemoData(store.dataSet);
      logger.info({ counts }, 'empty embedded store: demo data loaded (DEMO_DATA=false turns this off)');
    }
    const endpoints = await loadServiceModel(config.soapNamespace);
    const metrics = createMetrics({ outbox: store.outbox });
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
      onQueued: () => delivery?.worker.notify(),
    });
    const shutdown = createShutdown({ logger, timeoutMs: config.shutdownTimeoutMs });
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
    const health = healthRoutes({
      store: store.lifecycle,
      timeoutMs: READINESS_TIMEOUT_MS,
      draining: () => shutdown.draining,
      worker,
    });
    const routes: OperatorRoute[] = [
      { path: '/healthz', handler: health },
      { path: '/readyz', handler: health },
      {
        path: `${ADMIN_API_BASE}/`,
        handler: createAdminApi({ store: store.admin, token: config.adminToken, logger, bodyLimit: config.bodyLimit }),
      },
    ];
    if (config.console.enabled) {
      // Its own thread for passwords: a flood of Basic logins on the SOAP side does not lock operators out.
      const consoleBcrypt = createBcryptPool({ threads: 1 });
      shutdown.register('console bcrypt thread', () => consoleBcrypt.close());
      closeConsole = () => consoleBcrypt.close();
      const handler = createConsole({
        stores: { console: store.console, admin: store.admin, access: store.access },
        settings: {
          secureCookies: config.publicBaseUrl?.startsWith('https:') ?? false,
          idleMs: config.console.sessionIdleMinutes * 60_000,
          maxAgeMs: config.console.sessionMaxHours * 3_600_000,
          allow: consoleAllowList(config.console.allow),
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

    const app = createApp({
      endpoints,
      operations,
      logger,
      bodyLimit: config.bodyLimit,
      xmlMaxDepth: config.xmlMaxDepth,
      trustProxy: config.trustProxy,
      operationTimeoutMs: config.operationTimeoutMs,
      helpPages: config.helpPages,
      jsonBodies: config.jsonBodies,
      observe: observeRequests({ logger, metrics: metrics.requests }),
      routes,
      access: access ?? undefined,
      publicBaseUrl: config.publicBaseUrl,
    });
    if (config.delivery.worker) {
      const running = startDelivery(config.delivery, store.outbox, logger, { observer: metrics.delivery });
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
        await running?.stop(DELIVERY_STOP_MS);
        await runningLimits?.stop();
        await runningAccess?.close();
        await closeConsole();
        if (ownsStore) await store.lifecycle.close();
      },
    };
  } catch (err) {
    if (ownsStore) await store.lifecycle.close();
    throw err;
  }
}

export { listen } from './server/http-server';
