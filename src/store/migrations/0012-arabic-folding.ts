import { sql, type Kysely } from 'kysely';
import { SEARCH_NAME_SQL } from '../records/search-name';
import { SEARCH_NAME_0008 } from './0008-console';
import { textType } from './column-types';
import type { StoreDialect, StoreMigration } from './migration';

// The console's student search folds the Arabic letters people type one for
// another (أ إ آ ٱ to ا, ة to ه, ى to ي) as well as the diacritics
// (docs/console.md#find-a-student, src/store/records/search-name.ts).
// students.search_name is a generated column: it is dropped and added again
// with the new expression, so that the database computes it for every row
// already there, on both stores, and keeps it current on every write.
async function replaceColumn(db: Kysely<unknown>, dialect: StoreDialect, expression: string): Promise<void> {
  const text = textType(dialect);
  // SQLite adds only virtual generated columns to an existing table; PostgreSQL only stored ones.
  const kind = dialect === 'sqlite' ? sql`virtual` : sql`stored`;
  await db.schema.dropIndex('students_search_name_idx').ifExists().execute();
  await db.schema.alterTable('students').dropColumn('search_name').execute();
  await sql`alter table students add column search_name ${text} generated always as (${sql.raw(expression)}) ${kind}`.execute(
    db,
  );
  await db.schema.createIndex('students_search_name_idx').on('students').columns(['search_name', 'id']).execute();
}

export const arabicFoldingMigration: StoreMigration = {
  up: (db, dialect) => replaceColumn(db, dialect, SEARCH_NAME_SQL),
  down: (db, dialect) => replaceColumn(db, dialect, SEARCH_NAME_0008),
};
