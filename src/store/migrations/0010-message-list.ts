import { sql, type Kysely } from 'kysely';
import { textType } from './column-types';
import type { StoreMigration } from './migration';

// The console's list of messages (docs/console.md#messages): newest first,
// paged by the key (created_at, id), filtered by status, school, type, a
// student, or the last digits of a phone.
// - auth_code_messages.phone_suffix: the phone's last 4 characters (digits:
//   phones are stored in E.164), computed by the database from `phone` on
//   every write, so the rows already there have it at once; the list finds
//   a phone by it, never by a searchable copy of the whole number;
// - push_notifications.school_key: the student's school when the message was
//   queued (set by the outbox's insert), filled here from the students for
//   the rows already there; a message of a student since removed keeps null;
// - an index per filter, each ending in (created_at, id), so that a page of
//   a filter is a seek and a read of the page's rows in the index's order
//   (src/store/message-history/message-list.ts). Not the type: a handful of values,
//   each common, read from (created_at, id) and checked row by row, which
//   spares every queued push a sixth index entry. The login codes' index on
//   created_at alone (0002, the AuthCode budget's count) gives way to the
//   one on (created_at, id), which serves that count as well.
const SUFFIX_LENGTH = 4;

const INDEXES: Readonly<Record<'push_notifications' | 'auth_code_messages', readonly (readonly string[])[]>> = {
  push_notifications: [
    ['created_at', 'id'],
    ['status', 'created_at', 'id'],
    ['school_key', 'created_at', 'id'],
    ['student_id', 'created_at', 'id'],
  ],
  auth_code_messages: [
    ['created_at', 'id'],
    ['status', 'created_at', 'id'],
    ['phone_suffix', 'created_at', 'id'],
  ],
};

const indexName = (table: string, columns: readonly string[]): string =>
  `${table}_list_${columns.length === 2 ? 'created' : columns[0]}_idx`;

export const messageListMigration: StoreMigration = {
  async up(db, dialect) {
    const text = textType(dialect);
    // SQLite adds only virtual generated columns to an existing table; PostgreSQL only stored ones.
    const suffix =
      dialect === 'sqlite'
        ? sql`(substr(phone, ${sql.lit(-SUFFIX_LENGTH)})) virtual`
        : sql`(right(phone, ${sql.lit(SUFFIX_LENGTH)})) stored`;
    await sql`alter table auth_code_messages add column phone_suffix ${text} generated always as ${suffix}`.execute(db);
    await db.schema.alterTable('push_notifications').addColumn('school_key', text).execute();
    await sql`update push_notifications set school_key =
      (select s.school_key from students s where s.id = push_notifications.student_id)`.execute(db);
    for (const [table, indexes] of Object.entries(INDEXES)) {
      for (const columns of indexes) {
        await db.schema
          .createIndex(indexName(table, columns))
          .on(table)
          .columns([...columns])
          .execute();
      }
    }
    await db.schema.dropIndex('auth_code_messages_created_idx').ifExists().execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema
      .createIndex('auth_code_messages_created_idx')
      .ifNotExists()
      .on('auth_code_messages')
      .column('created_at')
      .execute();
    for (const [table, indexes] of Object.entries(INDEXES)) {
      for (const columns of indexes) await db.schema.dropIndex(indexName(table, columns)).ifExists().execute();
    }
    await db.schema.alterTable('push_notifications').dropColumn('school_key').execute();
    await db.schema.alterTable('auth_code_messages').dropColumn('phone_suffix').execute();
  },
};
