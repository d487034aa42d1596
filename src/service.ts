// Builds the running service from its configuration: store, contract, operations, HTTP app.
import type { Server } from 'node:http';
import type { Express } from 'express';
import type { Config } from './config';
import { loadServiceModel } from './contract';
import { startDelivery, type RunningDelivery } from './delivery';
import type { Logger } from './log';
import { createOperations } from './operations';
import { createApp } from './server';
import { loadDemoData, openStore, type SqlStore } from './store';

export interface Service {
  readonly app: Express;
  readonly store: SqlStore;
  /** The delivery worker in this process (WORKER=true), or null. */
  readonly delivery: RunningDelivery | null;
  close(): Promise<void>;
}

/** How long shutdown waits for sends under way; the rest is retried after its lease. */
export const DELIVERY_STOP_MS = 5000;

export async function createService(config: Config, logger: Logger): Promise<Service> {
  const store = await openStore({ databaseUrl: config.databaseUrl ?? undefined, dataDir: config.dataDir });
  try {
    if (config.databaseUrl === null && config.demoData && (await store.isEmpty())) {
      const counts = await loadDemoData(store);
      logger.info({ counts }, 'empty embedded store: demo data loaded (DEMO_DATA=false turns this off)');
    }
    const endpoints = await loadServiceModel(config.soapNamespace);
    let delivery: RunningDelivery | null = null;
    const operations = createOperations(store, {
      phone: { defaultRegion: config.smsDefaultRegion, allowedCountries: config.smsAllowedCountries },
      templates: config.delivery.notificationTemplates,
      authCodeLimits: config.delivery.authCodeLimits,
      onQueued: () => delivery?.worker.notify(),
    });
    const app = createApp({
      endpoints,
      operations,
      logger,
      bodyLimit: config.bodyLimit,
      trustProxy: config.trustProxy,
      operationTimeoutMs: config.operationTimeoutMs,
      helpPages: config.helpPages,
    });
    if (config.delivery.worker) delivery = startDelivery(config.delivery, store, logger);
    const running = delivery;
    return {
      app,
      store,
      delivery: running,
      async close() {
        await running?.stop(DELIVERY_STOP_MS);
        await store.close();
      },
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** Listens; resolves once the port is bound. */
export function listen(app: Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (err?: Error) => (err ? reject(err) : resolve(server)));
    server.once('error', reject);
  });
}
