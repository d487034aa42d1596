// A temporary SQLite store seeded with data known in advance, for a service process.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore, type DataSet } from '../../../src/store';

export interface TempStore {
  readonly dataDir: string;
  remove(): void;
}

export async function seededSqlite(data: DataSet, databaseUrl?: string): Promise<TempStore> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-chaos-'));
  const store = await openStore(databaseUrl === undefined ? { dataDir } : { dataDir, databaseUrl });
  try {
    await store.writeDataSet(data);
  } finally {
    await store.close();
  }
  return { dataDir, remove: () => rmSync(dataDir, { recursive: true, force: true }) };
}
