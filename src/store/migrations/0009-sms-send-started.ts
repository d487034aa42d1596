import type { Kysely } from 'kysely';
import { textType } from './column-types';
import type { StoreMigration } from './migration';

// When the current attempt of a login code was handed to an SMS gateway that
// cannot drop a repeat: written (and committed) just before the gateway is
// called, cleared by the next claim. A message whose worker stopped with it
// set may have been sent, so when its lease ends it becomes `uncertain`
// instead of being sent again (docs/delivery.md#sent-once). Null otherwise.
export const smsSendStartedMigration: StoreMigration = {
  async up(db, dialect) {
    await db.schema.alterTable('auth_code_messages').addColumn('send_started_at', textType(dialect)).execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('auth_code_messages').dropColumn('send_started_at').execute();
  },
};
