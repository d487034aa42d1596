import { sql, type Kysely } from 'kysely';
import type { StoreMigration } from './migration';

const OUTBOX_TABLES = ['push_notifications', 'auth_code_messages'] as const;

// The (status, updated_at) index of 0003 without the rows in flight: every
// queued row and every claim (queued to sending) wrote into it, and every
// result moved its entry again, yet nothing reads a queued or sending row by
// its last change. Its readers (the retention prune, the dead letters newest
// first, the overview's retrying and given-up counts) ask for settled rows
// only and spell this condition as the index does, so that SQLite's planner
// sees the index apply (outbox/settled.ts). A push then moves three index
// entries fewer from queued to sent (docs/delivery.md#cpu-per-push).
export const outboxSettledIndexMigration: StoreMigration = {
  async up(db: Kysely<unknown>) {
    for (const table of OUTBOX_TABLES) {
      await db.schema
        .createIndex(`${table}_settled_idx`)
        .on(table)
        .columns(['status', 'updated_at'])
        // Literal, as its readers spell it (src/store/outbox/settled.ts).
        .where(sql<boolean>`status not in ('queued', 'sending')`)
        .execute();
      await db.schema.dropIndex(`${table}_status_updated_idx`).ifExists().execute();
    }
  },
  async down(db: Kysely<unknown>) {
    // The whole index of 0003 again, then the settled one goes.
    for (const table of OUTBOX_TABLES) {
      const whole = sql.id(`${table}_status_updated_idx`);
      await sql`create index if not exists ${whole} on ${sql.table(table)} (status, updated_at)`.execute(db);
      await db.schema.dropIndex(`${table}_settled_idx`).ifExists().execute();
    }
  },
};
