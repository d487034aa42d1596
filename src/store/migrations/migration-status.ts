// Whether the schema is the one this code was written for: readiness wants
// every migration we know applied. Migrations we do not know (a newer
// release already ran) are reported but not held against us.
import { DEFAULT_MIGRATION_TABLE, sql, type Kysely } from 'kysely';
import { migrationsFor, type StoreDialect } from './index';

export interface MigrationStatus {
  /** Every migration of this release is applied. */
  readonly current: boolean;
  readonly applied: readonly string[];
  /** Ours, not yet applied. */
  readonly pending: readonly string[];
  /** Applied, but unknown to this release. */
  readonly unknown: readonly string[];
}

export async function readMigrationStatus<DB>(db: Kysely<DB>, dialect: StoreDialect): Promise<MigrationStatus> {
  const { rows } = await sql<{
    name: string;
  }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)} order by name`.execute(db);
  const applied = rows.map((row) => row.name);
  const known = Object.keys(migrationsFor(dialect)).sort();
  const pending = known.filter((name) => !applied.includes(name));
  const unknown = applied.filter((name) => !known.includes(name));
  return { current: pending.length === 0, applied, pending, unknown };
}
