import path from 'node:path';
import { Kysely, type Dialect } from 'kysely';
import type { StoreDatabase } from './database';
import { StoreError, toStoreError } from './errors';
import { migrateToLatest } from './migrations/migrate';
import { listenForOutbox } from './outbox/outbox-notify';
import type { StoreDialect } from './migrations';
import { assertSchemaName, createPostgresDialect, preparePostgresSchema } from './connection/postgres';
import { SharedResources } from './connection/shared-resources';
import { createAccessStore } from './audit-and-counters/access-role';
import { createAdminStore } from './admin-role';
import { createConsoleStore } from './console-role';
import { createStoreCore } from './core';
import { createDataSetStore } from './data-set/data-set-role';
import { readMigrationStatus } from './migrations/migration-status';
import { createOutbox } from './outbox/outbox-role';
import type { OutboxSubscription } from './outbox/outbox-notify';
import { prepareQueries } from './records/queries';
import { createRecords } from './records/records-role';
import type { OpenedStore } from './roles';
import { openSqlite, SQLITE_FILE_NAME, type ReadNow, type WriteNow } from './connection/sqlite';
import { tracedDialect } from './connection/traced-dialect';
import type { Tracer } from '../trace';

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
   * How long a call that queues a message waits for others to share its
   * commit while earlier ones are being written (group commit; on SQLite only
   * push notifications share one); null commits each call on its own.
   * Default 2 ms.
   */
  groupCommitMs?: number | null;
  /**
   * Tracing (docs/operating.md#traces): a span for each statement run inside
   * a traced call, and one for each message queued. With SQLite, stores of one
   * file share a connection and the first one opened decides.
   */
  tracer?: Tracer | null;
}

export const DEFAULT_GROUP_COMMIT_MS = 2;

// Two connections to one file in one process would contend for its write
// lock: one would wait (sqlite-lock-wait.ts) and fail after its deadline
// while the other holds it, where one queue serves both. Stores of the same
// file in one process therefore share a connection and its queue.
const sqliteFiles = new SharedResources<{
  db: Kysely<StoreDatabase>;
  readNow: ReadNow | null;
  writeNow: WriteNow | null;
  closed: () => Promise<void>;
}>();

/**
 * Opens the store and brings its schema up to date. Rejects with StoreError
 * when the database cannot be opened or migrated.
 */
export async function openStore(options: OpenStoreOptions): Promise<OpenedStore> {
  const databaseUrl = options.databaseUrl?.trim() ?? '';
  const now = options.now ?? (() => new Date());
  const tracer = options.tracer ?? null;
  const groupCommitMs = options.groupCommitMs === undefined ? DEFAULT_GROUP_COMMIT_MS : options.groupCommitMs;

  if (databaseUrl === '') {
    const file = path.resolve(options.dataDir, SQLITE_FILE_NAME);
    const lease = await sqliteFiles.acquire(
      file,
      async () => {
        const opened: { readNow?: ReadNow; writeNow?: WriteNow; closed?: () => Promise<void> } = {};
        const db = await connect(
          'sqlite',
          () => {
            const sqlite = openSqlite(options.dataDir);
            opened.readNow = sqlite.readNow;
            opened.writeNow = sqlite.writeNow;
            opened.closed = sqlite.closed;
            return sqlite.dialect;
          },
          undefined,
          tracer,
        );
        // With traces on, every statement goes through Kysely's executor, where its span is taken.
        return {
          db,
          readNow: tracer === null ? (opened.readNow ?? null) : null,
          writeNow: tracer === null ? (opened.writeNow ?? null) : null,
          closed: opened.closed ?? (() => Promise.resolve()),
        };
      },
      async ({ db, closed }) => {
        await db.destroy();
        // The checkpoint thread (sqlite-checkpointer.ts) exits just after the connection closes.
        await closed();
      },
    );
    return assemble(lease.value.db, 'sqlite', {
      now,
      tracer,
      release: () => lease.release(),
      groupCommitMs,
      readNow: lease.value.readNow,
      writeNow: lease.value.writeNow,
    });
  }

  // A malformed schema name is a configuration mistake, not an outage.
  if (options.schema !== undefined) assertSchemaName(options.schema);
  const dialect = () =>
    createPostgresDialect({ databaseUrl, schema: options.schema, onBackgroundError: options.onBackgroundError });
  const db = await connect('postgres', dialect, options.schema, tracer);
  return assemble(db, 'postgres', {
    now,
    tracer,
    release: () => db.destroy(),
    groupCommitMs,
    listen: (onNotification) => listenForOutbox({ databaseUrl, schema: options.schema, onNotification }),
  });
}

interface Assembly {
  readonly now: () => Date;
  readonly tracer: Tracer | null;
  /** Gives the connection back (destroys it, or drops a share of it). */
  readonly release: () => Promise<void>;
  /** How long a queueing call waits for others to share its commit (see group-commit.ts); null writes each call on its own. */
  readonly groupCommitMs: number | null;
  /** PostgreSQL: opens a LISTEN connection for the outbox channel (see outbox-notify.ts). */
  readonly listen?: (onNotification: (channel: string) => void) => Promise<OutboxSubscription>;
  /** SQLite: reads run at once on the connection (connection/sqlite.ts); absent, every read takes Kysely's path. */
  readonly readNow?: ReadNow | null;
  /** SQLite: the outbox insert runs at once on the connection (connection/sqlite.ts); absent, it takes Kysely's path. */
  readonly writeNow?: WriteNow | null;
}

// A bound on one group commit: bind parameters (13 per push row, PostgreSQL
// takes 65,535) and the time one transaction holds its locks.
const GROUP_COMMIT_MAX_BATCH = 500;
// Batches written at once; the pool (10 connections) also serves the reads.
const GROUP_COMMIT_IN_FLIGHT = 4;

// SQLite: the push notifications queued in one turn of the event loop share
// a commit, which is most of an insert's cost (a page of each of the table's
// eight b-trees written to the WAL; docs/design.md#storage). Batches are not
// held behind one another: while another program holds the write lock each
// waits for it from its own start, as single calls did (sqlite-lock-wait.ts),
// so a call's wait stays within one deadline.
const SQLITE_PUSH_BATCH = 64;
const SQLITE_PUSH_IN_FLIGHT = 1024;

// The roles over one core: one connection, one clock, one close.
function assemble(db: Kysely<StoreDatabase>, dialect: StoreDialect, assembly: Assembly): OpenedStore {
  const core = createStoreCore(
    db,
    dialect,
    assembly.now,
    assembly.release,
    assembly.tracer,
    assembly.readNow ?? null,
    assembly.writeNow ?? null,
  );
  const queries = prepareQueries(db, dialect);
  const waitMs = assembly.groupCommitMs;
  const batching =
    dialect === 'postgres' && waitMs !== null
      ? { waitMs, maxBatch: GROUP_COMMIT_MAX_BATCH, maxInFlight: GROUP_COMMIT_IN_FLIGHT }
      : null;
  return {
    records: createRecords(core, queries, batching),
    outbox: createOutbox(core, {
      batching,
      ...(dialect === 'sqlite'
        ? {
            pushBatching:
              waitMs === null ? null : { waitMs, maxBatch: SQLITE_PUSH_BATCH, maxInFlight: SQLITE_PUSH_IN_FLIGHT },
          }
        : {}),
      listen: assembly.listen,
    }),
    dataSet: createDataSetStore(core, queries),
    access: createAccessStore(core),
    admin: createAdminStore(core),
    console: createConsoleStore(core),
    lifecycle: {
      ping: () =>
        core
          .run(() => db.executeQuery(queries.ping({})))
          .then(
            () => true,
            () => false,
          ),
      migrationStatus: () => core.run(() => readMigrationStatus(db, dialect)),
      close: () => core.close(),
    },
  };
}

async function connect(
  dialect: StoreDialect,
  createDialect: () => Dialect,
  schema: string | undefined,
  tracer: Tracer | null,
): Promise<Kysely<StoreDatabase>> {
  let driverDialect: Dialect;
  try {
    driverDialect = createDialect();
  } catch (error) {
    throw new StoreError('unavailable', error);
  }
  if (tracer !== null)
    driverDialect = tracedDialect(driverDialect, tracer, dialect === 'sqlite' ? 'sqlite' : 'postgresql');
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
