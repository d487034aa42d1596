import type { Kysely } from 'kysely';
import type { StoreMigration } from './migration';

const OUTBOX_TABLES = ['push_notifications', 'auth_code_messages'] as const;

// The retention prune deletes `sent` and `dead` rows last changed before a
// cut-off (outbox-admin.ts). Without an index on (status, updated_at) each of
// its batches reads the whole table, which on a busy PostgreSQL outbox of
// millions of rows holds back every worker sharing the database.
export const deliveryScaleMigration: StoreMigration = {
  async up(db: Kysely<unknown>) {
    for (const table of OUTBOX_TABLES) {
      await db.schema.createIndex(`${table}_status_updated_idx`).on(table).columns(['status', 'updated_at']).execute();
    }
  },
  async down(db: Kysely<unknown>) {
    for (const table of OUTBOX_TABLES) await db.schema.dropIndex(`${table}_status_updated_idx`).ifExists().execute();
  },
};
