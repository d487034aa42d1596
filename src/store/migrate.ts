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
    await run(new Migrator({ db, provider, migrationTableSchema }));
    return;
  }
  // Kysely's SQLite lock is in-process only. One immediate transaction around
  // the whole run makes a second process (server and worker starting
  // together) wait and then find the work done.
  await inWriteTransaction(db, dialect, (connection) =>
    run(new Migrator({ db: connection, provider, disableTransactions: true })),
  );
}

async function run(migrator: Migrator): Promise<void> {
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw error;
}
