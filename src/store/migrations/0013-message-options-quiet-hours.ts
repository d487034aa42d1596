import { sql, type Kysely } from 'kysely';
import { textType } from './column-types';
import type { StoreMigration } from './migration';

// A school's clock and its message options (docs/delivery.md#quiet-hours,
// docs/delivery.md#message-options):
// - schools.time_zone: an IANA name, `UTC` for the schools stored before;
// - schools.quiet_hours: `HH:MM-HH:MM` in that zone, null for none;
// - schools.push_options: JSON, the school's message options per type, null for none;
// - push_notifications.options: JSON, the options resolved when the message
//   was queued (its lifetime as an instant); null for the messages queued
//   before, which are sent as they always were.
export const messageOptionsQuietHoursMigration: StoreMigration = {
  async up(db, dialect) {
    const text = textType(dialect);
    await db.schema
      .alterTable('schools')
      .addColumn('time_zone', text, (c) => c.notNull().defaultTo(sql`'UTC'`))
      .execute();
    await db.schema.alterTable('schools').addColumn('quiet_hours', text).execute();
    await db.schema.alterTable('schools').addColumn('push_options', text).execute();
    await db.schema.alterTable('push_notifications').addColumn('options', text).execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('push_notifications').dropColumn('options').execute();
    for (const column of ['push_options', 'quiet_hours', 'time_zone'])
      await db.schema.alterTable('schools').dropColumn(column).execute();
  },
};
