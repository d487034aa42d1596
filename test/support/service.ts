import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { AccessControl } from '../../src/access';
import { loadServiceModel } from '../../src/contract';
import { createOperations } from '../../src/operations';
import { createApp, type App } from '../../src/server';
import type { ConnectionLimits } from '../../src/server/http-server';
import { listen } from '../../src/service';
import { openStore, type DataSet, type OpenedStore } from '../../src/store';
import { FIXTURES } from './fixtures';

export interface TestService {
  readonly app: App;
  readonly store: OpenedStore;
  close(): Promise<void>;
}

export interface TestServiceOptions {
  namespace?: string;
  data?: DataSet;
  bodyLimit?: number;
  trustProxy?: boolean | number | string;
  operationTimeoutMs?: number;
  helpPages?: boolean;
  /** An access policy (src/access); none: every call open. */
  access?: AccessControl;
  publicBaseUrl?: string | null;
  /** MAX_QUERY_STRING_LENGTH; left out, no limit. */
  maxQueryStringLength?: number;
  /** A store of the caller's (e.g. on PostgreSQL, test/support/stores.ts), seeded here and closed with the service; none: SQLite in a temporary folder. */
  store?: OpenedStore;
}

/** The real app on a real store (SQLite in a temporary folder unless given one), seeded with the test fixtures. */
export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-wire-'));
  const store = options.store ?? (await openStore({ dataDir }));
  await store.dataSet.writeDataSet(options.data ?? FIXTURES);
  const endpoints = await loadServiceModel(options.namespace ?? 'http://tempuri.org/');
  const operations = createOperations(store, { phone: { defaultRegion: 'SY', allowedCountries: ['SY'] } });
  const app = createApp({
    endpoints,
    operations,
    logger: pino({ level: 'silent' }),
    bodyLimit: options.bodyLimit ?? 1048576,
    trustProxy: options.trustProxy ?? false,
    operationTimeoutMs: options.operationTimeoutMs ?? 5000,
    helpPages: options.helpPages ?? true,
    access: options.access,
    publicBaseUrl: options.publicBaseUrl,
    maxQueryStringLength: options.maxQueryStringLength,
  });
  return {
    app,
    store,
    async close() {
      await store.lifecycle.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface LoopbackListener {
  readonly port: number;
  /** Connections the server has open. */
  connections(): Promise<number>;
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  close(): Promise<void>;
}

/** The app on a free loopback port, for clients that need a real socket; the service's connection limits unless others are given. */
export async function listenOnLoopback(app: App, limits?: Partial<ConnectionLimits>): Promise<LoopbackListener> {
  const server = await listen(app, 0, '127.0.0.1', limits);
  const { port } = server.address() as AddressInfo;
  return {
    port,
    base: `http://127.0.0.1:${port}`,
    connections: () =>
      new Promise((resolve, reject) => server.getConnections((err, count) => (err ? reject(err) : resolve(count)))),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
