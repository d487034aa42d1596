import { sql, type Kysely } from 'kysely';
import type { StoreMigration } from './migration';

// The console's list of messages filtered by type or by last error
// (docs/console.md#messages, docs/design.md#the-list-of-messages-at-a-million):
// 0010 left both out, read from the time index and checked row by row,
// which is quick for a common value but reads every row for one few or no
// messages have (a whole table for `audit` when no school sends it, or for
// an error of last month). An index on (type, created_at, id) of the pushes
// and of the refused calls, and on (last_error, created_at, id) of the
// messages that have one, make a page of either a seek and a read of the
// page's rows, as the other filters are. A push's type never changes after
// it is queued; the last error's index is partial, so that the messages
// sent at the first attempt (most of them) have no entry in it.
const TYPE_INDEXES = [
  { name: 'push_notifications_list_type_idx', table: 'push_notifications' },
  { name: 'refused_calls_type_idx', table: 'refused_calls' },
] as const;

const ERROR_INDEXES = [
  { name: 'push_notifications_list_last_error_idx', table: 'push_notifications' },
  { name: 'auth_code_messages_list_last_error_idx', table: 'auth_code_messages' },
] as const;

export const messageListIndexesMigration: StoreMigration = {
  async up(db) {
    for (const { name, table } of TYPE_INDEXES)
      await db.schema.createIndex(name).on(table).columns(['type', 'created_at', 'id']).execute();
    for (const { name, table } of ERROR_INDEXES)
      await db.schema
        .createIndex(name)
        .on(table)
        .columns(['last_error', 'created_at', 'id'])
        .where(sql.ref('last_error'), 'is not', null)
        .execute();
  },
  async down(db: Kysely<unknown>) {
    for (const { name } of [...TYPE_INDEXES, ...ERROR_INDEXES]) await db.schema.dropIndex(name).ifExists().execute();
  },
};
