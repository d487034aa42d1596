import { Kysely, type Dialect } from 'kysely';
import type { StoreDatabase } from './database';
import { StoreError, toStoreError } from './errors';
import { migrateToLatest } from './migrate';
import type { StoreDialect } from './migrations';
import { assertSchemaName, createPostgresDialect, preparePostgresSchema } from './postgres';
import { SqlStore } from './sql-store';
import { openSqliteDialect } from './sqlite';

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
}

/**
 * Opens the store and brings its schema up to date. Rejects with StoreError
 * when the database cannot be opened or migrated.
 */
export async function openStore(options: OpenStoreOptions): Promise<SqlStore> {
  const databaseUrl = options.databaseUrl?.trim() ?? '';
  const dialect: StoreDialect = databaseUrl === '' ? 'sqlite' : 'postgres';
  // A malformed schema name is a configuration mistake, not an outage.
  if (dialect === 'postgres' && options.schema !== undefined) assertSchemaName(options.schema);

  let driverDialect: Dialect;
  try {
    driverDialect =
      dialect === 'postgres'
        ? createPostgresDialect({ databaseUrl, schema: options.schema, onBackgroundError: options.onBackgroundError })
        : openSqliteDialect(options.dataDir);
  } catch (error) {
    throw new StoreError('unavailable', error);
  }

  const db = new Kysely<StoreDatabase>({ dialect: driverDialect });
  try {
    const migrationSchema = dialect === 'postgres' ? await preparePostgresSchema(db, options.schema) : undefined;
    await migrateToLatest(db, dialect, migrationSchema);
  } catch (error) {
    await db.destroy().catch(() => undefined);
    throw toStoreError(error);
  }
  return new SqlStore(db, dialect, { now: options.now });
}
