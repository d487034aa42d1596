import type { Kysely } from 'kysely';
import { textType } from './column-types';
import type { StoreMigration } from './migration';

// When an operator dismissed a dead message from the console's dead letters
// (docs/console.md#dead-letters): it is kept, and out of the list while it
// stays dead. A message that is resent and dies again changes after its
// dismissal (updated_at), and shows again. Null: never dismissed.
export const deadLetterDismissalMigration: StoreMigration = {
  async up(db, dialect) {
    await db.schema.alterTable('push_notifications').addColumn('dismissed_at', textType(dialect)).execute();
    await db.schema.alterTable('auth_code_messages').addColumn('dismissed_at', textType(dialect)).execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('push_notifications').dropColumn('dismissed_at').execute();
    await db.schema.alterTable('auth_code_messages').dropColumn('dismissed_at').execute();
  },
};
