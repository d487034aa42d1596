import type { Kysely } from 'kysely';
import type { StoreMigration } from './migration';

// The console's list of messages filtered by type (docs/console.md#messages,
// docs/design.md#the-list-of-messages-at-a-million): 0010 left the type out,
// read from the time index and checked row by row, which is quick for a
// common type but reads every row for a type few or no messages have (a
// whole table for `audit` when no school sends it). An index on
// (type, created_at, id) of the pushes and of the refused calls makes a
// page of any type a seek and a read of the page's rows, as the other
// filters are. A push's type never changes after it is queued.
const INDEXES = [
  { name: 'push_notifications_list_type_idx', table: 'push_notifications' },
  { name: 'refused_calls_type_idx', table: 'refused_calls' },
] as const;

export const messageListTypeMigration: StoreMigration = {
  async up(db) {
    for (const { name, table } of INDEXES)
      await db.schema.createIndex(name).on(table).columns(['type', 'created_at', 'id']).execute();
  },
  async down(db: Kysely<unknown>) {
    for (const { name } of INDEXES) await db.schema.dropIndex(name).ifExists().execute();
  },
};
