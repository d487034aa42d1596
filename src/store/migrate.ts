import { Migrator, type Kysely, type MigrationProvider } from 'kysely';
import { migrationsFor, type StoreDialect } from './migrations';
import { inWriteTransaction } from './transaction';

/** Brings the schema up to date; safe to run on every start. */
export async function migrateToLatest<DB>(
  db: Kysely<DB>,
  dialect: StoreDialect,
  migrationTableSchema: string | undefined,
): Promise<void> {
  const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrationsFor(dialect)) };

  if (dialect === 'postgres') {
    // Kysely serialises concurrent migrators with an advisory lock and runs
    // them in a transaction. The explicit schema keeps it from mistaking
    // another schema's migration table for ours.
    await runRetryingVanishedSchemas(() => run(new Migrator({ db, provider, migrationTableSchema })), migrationTableSchema);
    return;
  }
  // Kysely's SQLite lock is in-process only. One immediate transaction around
  // the whole run makes a second process (server and worker starting
  // together) wait and then find the work done.
  await inWriteTransaction(db, dialect, (connection) =>
    run(new Migrator({ db: connection, provider, disableTransactions: true })),
  );
}

// Kysely's migrator looks for its table by introspecting every schema of the
// database (has_schema_privilege and pg_get_serial_sequence on each table).
// When another schema is dropped while that query runs (tests do it all the
// time; a second tenant could), PostgreSQL answers "schema … does not exist"
// (3F000) about that other schema. Nothing is wrong with ours: try again.
const VANISHED_SCHEMA_RETRIES = 5;

export async function runRetryingVanishedSchemas(work: () => Promise<void>, ours: string | undefined): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await work();
      return;
    } catch (error) {
      const { code, message } = error as { code?: unknown; message?: unknown };
      const aboutOurs = ours !== undefined && typeof message === 'string' && message.includes(`"${ours}"`);
      if (code !== '3F000' || aboutOurs || attempt >= VANISHED_SCHEMA_RETRIES) throw error;
    }
  }
}

async function run(migrator: Migrator): Promise<void> {
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw error;
}
