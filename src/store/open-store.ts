import path from 'node:path';
import { Kysely, type Dialect } from 'kysely';
import type { StoreDatabase } from './database';
import { StoreError, toStoreError } from './errors';
import { migrateToLatest } from './migrations/migrate';
import { listenForOutbox } from './outbox/outbox-notify';
import type { StoreDialect } from './migrations';
import { assertSchemaName, createPostgresDialect, preparePostgresSchema } from './connection/postgres';
import { SharedResources } from './connection/shared-resources';
import type { OpenedStore } from './roles';
import { SqlStore } from './sql-store';
import { openSqliteDialect, SQLITE_FILE_NAME } from './connection/sqlite';

export interface OpenStoreOptions {
  /** PostgreSQL connection string; empty or unset selects embedded SQLite. */
  databaseUrl?: string;
  /** Folder of the SQLite file (`service.sqlite`), created if missing. */
  dataDir: string;
  /** PostgreSQL only: keep every table in this schema (created if missing). */
  schema?: string;
  /** PostgreSQL only: errors of idle pooled connections, for the log. */
  onBackgroundError?: (error: Error) => void;
  /** Source of timestamps; tests pin it. */
  now?: () => Date;
  /**
   * PostgreSQL only: how long a call that queues a message waits for others
   * to share its commit while earlier ones are being written (group commit);
   * null commits each call on its own. Default 2 ms.
   */
  groupCommitMs?: number | null;
}

export const DEFAULT_GROUP_COMMIT_MS = 2;

// better-sqlite3 waits for a lock synchronously, so two connections to one
// file in one process would freeze the event loop for busy_timeout and fail
// (the holder can never get back to commit). Stores of the same file in one
// process therefore share a connection and its queue.
const sqliteFiles = new SharedResources<Kysely<StoreDatabase>>();

/**
 * Opens the store and brings its schema up to date. Rejects with StoreError
 * when the database cannot be opened or migrated.
 */
export async function openStore(options: OpenStoreOptions): Promise<OpenedStore> {
  const databaseUrl = options.databaseUrl?.trim() ?? '';
  const storeOptions = { now: options.now };

  if (databaseUrl === '') {
    const file = path.resolve(options.dataDir, SQLITE_FILE_NAME);
    const lease = await sqliteFiles.acquire(
      file,
      () => connect('sqlite', () => openSqliteDialect(options.dataDir), undefined),
      (db) => db.destroy(),
    );
    return new SqlStore(lease.value, 'sqlite', { ...storeOptions, release: () => lease.release() });
  }

  // A malformed schema name is a configuration mistake, not an outage.
  if (options.schema !== undefined) assertSchemaName(options.schema);
  const dialect = () => createPostgresDialect({ databaseUrl, schema: options.schema, onBackgroundError: options.onBackgroundError });
  const db = await connect('postgres', dialect, options.schema);
  return new SqlStore(db, 'postgres', {
    ...storeOptions,
    release: () => db.destroy(),
    groupCommitMs: options.groupCommitMs === undefined ? DEFAULT_GROUP_COMMIT_MS : options.groupCommitMs,
    listen: (onNotification) => listenForOutbox({ databaseUrl, schema: options.schema, onNotification }),
  });
}

async function connect(dialect: StoreDialect, createDialect: () => Dialect, schema: string | undefined): Promise<Kysely<StoreDatabase>> {
  let driverDialect: Dialect;
  try {
    driverDialect = createDialect();
  } catch (error) {
    throw new StoreError('unavailable', error);
  }
  const db = new Kysely<StoreDatabase>({ dialect: driverDialect });
  try {
    const migrationSchema = dialect === 'postgres' ? await preparePostgresSchema(db, schema) : undefined;
    await migrateToLatest(db, dialect, migrationSchema);
  } catch (error) {
    await db.destroy().catch(() => undefined);
    throw toStoreError(error);
  }
  return db;
}
