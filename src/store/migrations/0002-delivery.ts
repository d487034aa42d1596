import { sql, type Kysely } from 'kysely';
import { textType } from './column-types';
import type { StoreMigration } from './migration';

const OUTBOX_TABLES = ['push_notifications', 'auth_code_messages'] as const;

// What the delivery worker needs beyond the outbox rows of 0001:
// - claim_token: which claim a worker holds, so that a worker whose lease ran
//   out cannot overwrite the result of the claim that replaced it;
// - provider_message_id: the provider's name for what it accepted, for support;
// - a partial index of the rows a worker may claim, ordered by when they are
//   due, so that a claim reads a few index entries however long the history;
// - an index on created_at for the global AuthCode budget.
export const deliveryMigration: StoreMigration = {
  async up(db, dialect) {
    const text = textType(dialect);
    for (const table of OUTBOX_TABLES) {
      await db.schema.alterTable(table).addColumn('claim_token', text).execute();
      await db.schema.alterTable(table).addColumn('provider_message_id', text).execute();
      await db.schema
        .createIndex(`${table}_due_idx`)
        .on(table)
        .column('next_attempt_at')
        // Literal, not parameters: SQLite uses a partial index only when the
        // query repeats the same condition (see outbox-claims.ts).
        .where(sql<boolean>`status in ('queued', 'failed', 'sending')`)
        .execute();
    }
    await db.schema
      .createIndex('auth_code_messages_created_idx')
      .on('auth_code_messages')
      .column('created_at')
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('auth_code_messages_created_idx').ifExists().execute();
    for (const table of OUTBOX_TABLES) {
      await db.schema.dropIndex(`${table}_due_idx`).ifExists().execute();
      await db.schema.alterTable(table).dropColumn('provider_message_id').execute();
      await db.schema.alterTable(table).dropColumn('claim_token').execute();
    }
  },
};
