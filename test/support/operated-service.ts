// The whole service as createService builds it (observer, metrics, health,
// admin API, JSON mode) on a throwaway store of the given variant, with its
// log lines captured.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/log';
import { createService, type Service, type ServiceParts } from '../../src/service';
import type { DataSet } from '../../src/store';
import { FIXTURES } from './fixtures';
import type { StoreVariant, TestStore } from './stores';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface OperatedService extends Service {
  readonly testStore: TestStore;
  /** Every log line written so far, parsed. */
  readonly logs: Record<string, unknown>[];
  stop(): Promise<void>;
}

export async function startOperatedService(
  variant: StoreVariant,
  env: Record<string, string> = {},
  data: DataSet = FIXTURES,
  parts: Omit<ServiceParts, 'store'> = {},
): Promise<OperatedService> {
  const testStore = await variant.create();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-ops-'));
  try {
    await testStore.store.dataSet.writeDataSet(data);
    // No in-process delivery worker unless a test asks for one: it would drain the outbox the tests look at.
    const config = loadConfig({
      DATA_DIR: dataDir,
      DEMO_DATA: 'false',
      WORKER: 'false',
      ADMIN_TOKEN,
      OPERATION_TIMEOUT_MS: '5000',
      ...env,
    });
    const logs: Record<string, unknown>[] = [];
    const logger = createLogger('info', {
      destination: { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
    });
    const service = await createService(config, logger, { ...parts, store: testStore.store });
    return {
      ...service,
      testStore,
      logs,
      async stop() {
        await service.close();
        await testStore.cleanup();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await testStore.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}
