import { Migrator, type Kysely, type MigrationProvider } from 'kysely';
import { migrationsFor, type StoreDialect } from './index';
import { inWriteTransaction } from '../connection/transaction';

/** Brings the schema up to date; safe to run on every start. */
export function migrateToLatest<DB>(
  db: Kysely<DB>,
  dialect: StoreDialect,
  migrationTableSchema: string | undefined,
): Promise<void> {
  return migrate(db, dialect, migrationTableSchema, null);
}

/**
 * Applies the migrations up to and including `last` and no further, as the
 * release that ended with it left the schema. Not for the service: the
 * upgrade tests build every earlier schema with it (test/store/upgrade.test.ts).
 */
export function migrateUpTo<DB>(
  db: Kysely<DB>,
  dialect: StoreDialect,
  migrationTableSchema: string | undefined,
  last: string,
): Promise<void> {
  if (!Object.hasOwn(migrationsFor(dialect), last)) return Promise.reject(new Error(`No migration ${last}.`));
  return migrate(db, dialect, migrationTableSchema, last);
}

async function migrate<DB>(
  db: Kysely<DB>,
  dialect: StoreDialect,
  migrationTableSchema: string | undefined,
  last: string | null,
): Promise<void> {
  const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrationsFor(dialect)) };

  if (dialect === 'postgres') {
    // Kysely serialises concurrent migrators with an advisory lock and runs
    // them in a transaction. The explicit schema keeps it from mistaking
    // another schema's migration table for ours.
    await runRetryingVanishedSchemas(
      () => run(new Migrator({ db, provider, migrationTableSchema }), last),
      migrationTableSchema,
    );
    return;
  }
  // Kysely's SQLite lock is in-process only. One immediate transaction around
  // the whole run makes a second process (server and worker starting
  // together) wait and then find the work done.
  await inWriteTransaction(db, dialect, (connection) =>
    run(new Migrator({ db: connection, provider, disableTransactions: true }), last),
  );
}

// Kysely's migrator looks for its table by introspecting every schema of the
// database (has_schema_privilege and pg_get_serial_sequence on each table).
// When another schema is dropped while that query runs (tests do it all the
// time; a second tenant could), PostgreSQL answers "schema … does not exist"
// (3F000) about that other schema, or "relation other.table does not exist"
// (42P01) when its tables go first. Nothing is wrong with ours: try again.
const VANISHED_SCHEMA_RETRIES = 5;

export async function runRetryingVanishedSchemas(work: () => Promise<void>, ours: string | undefined): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await work();
      return;
    } catch (error) {
      if (!aboutAnotherSchema(error, ours) || attempt >= VANISHED_SCHEMA_RETRIES) throw error;
    }
  }
}

/**
 * The schema vanished (3F000, `schema "x" does not exist`), or one of its
 * tables did as the schema was being dropped (42P01, `relation "x.t" does
 * not exist`), and it is not ours.
 */
function aboutAnotherSchema(error: unknown, ours: string | undefined): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof message !== 'string') return false;
  const schema =
    code === '3F000'
      ? /schema "([^"]+)"/.exec(message)?.[1]
      : code === '42P01'
        ? /relation "([^".]+)\./.exec(message)?.[1]
        : undefined;
  return schema !== undefined && schema !== ours;
}

async function run(migrator: Migrator, last: string | null): Promise<void> {
  const { error } = await (last === null ? migrator.migrateToLatest() : migrator.migrateTo(last));
  // Kysely passes on whatever the migration threw, which is an Error from both drivers.
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
}
