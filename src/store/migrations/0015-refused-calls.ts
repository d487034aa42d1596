import type { Kysely } from 'kysely';
import { textType } from './column-types';
import type { StoreMigration } from './migration';

// Calls of SendNotificationType and AuthCode that were refused (no device, a
// push token removed, a student of another school, an AuthCode limit), so
// that the console can answer "why did nothing come?" (docs/console.md#refused-calls).
// One row a refusal: the operation, the channel it would have used, the
// reason (the fault's code), the student and school, the type asked for, and
// for a login code the phone masked as the logs mask it and its last 4
// digits (searchable as the outbox's phone_suffix), never the whole number.
// Kept as long as finished messages (OUTBOX_RETENTION_DAYS). The indexes end
// in (created_at, id), as the outbox's of 0010, for the console's list.
const INDEXES: readonly (readonly string[])[] = [
  ['created_at', 'id'],
  ['student_id', 'created_at', 'id'],
  ['school_key', 'created_at', 'id'],
  ['phone_suffix', 'created_at', 'id'],
];

const indexName = (columns: readonly string[]): string =>
  `refused_calls_${columns.length === 2 ? 'created' : columns[0]}_idx`;

export const refusedCallsMigration: StoreMigration = {
  async up(db, dialect) {
    const text = textType(dialect);
    await db.schema
      .createTable('refused_calls')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('operation', text, (c) => c.notNull())
      .addColumn('channel', text, (c) => c.notNull())
      .addColumn('reason', text, (c) => c.notNull())
      .addColumn('student_id', text)
      .addColumn('school_key', text)
      .addColumn('type', text)
      .addColumn('phone', text)
      .addColumn('phone_suffix', text)
      .execute();
    for (const columns of INDEXES)
      await db.schema
        .createIndex(indexName(columns))
        .on('refused_calls')
        .columns([...columns])
        .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('refused_calls').ifExists().execute();
  },
};
