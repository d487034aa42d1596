import type { Kysely } from 'kysely';
import type { StoreMigration } from './migration';

const OUTBOX_TABLES = ['push_notifications', 'auth_code_messages'] as const;

// Every claim, completion and insert of an outbox row changes indexed columns
// (status, next_attempt_at, updated_at), so each writes an entry into every
// index of its table. The (status, next_attempt_at) index of 0001 has no
// reader left: claims and readiness use the partial due index of 0002, and
// the listings, counts and prune that filter by status use (status,
// updated_at) of 0003. Dropping it saves a fifth of the outbox's index writes
// (docs/delivery.md#postgresql-at-scale).
export const outboxIndexesMigration: StoreMigration = {
  async up(db: Kysely<unknown>) {
    for (const table of OUTBOX_TABLES) await db.schema.dropIndex(`${table}_status_next_idx`).ifExists().execute();
  },
  async down(db: Kysely<unknown>) {
    for (const table of OUTBOX_TABLES) {
      await db.schema
        .createIndex(`${table}_status_next_idx`)
        .ifNotExists()
        .on(table)
        .columns(['status', 'next_attempt_at'])
        .execute();
    }
  },
};
