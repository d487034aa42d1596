import type { Kysely } from 'kysely';
import { textType } from './column-types';
import type { StoreMigration } from './migration';

// console_accounts.time_zone: the zone an operator chose on the Preferences
// page (docs/console.md#times); null for every account stored before, which
// keeps it on the console's default (CONSOLE_TIME_ZONE, else UTC). The
// session read joins the account already, so the zone comes with it.
export const consoleAccountTimeZoneMigration: StoreMigration = {
  async up(db, dialect) {
    await db.schema.alterTable('console_accounts').addColumn('time_zone', textType(dialect)).execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('console_accounts').dropColumn('time_zone').execute();
  },
};
