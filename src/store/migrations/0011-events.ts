import { sql, type Kysely } from 'kysely';
import { textType } from './column-types';
import type { StoreMigration } from './migration';

// Delivery events to a school's own system (docs/delivery.md#delivery-events):
// - event_subscriptions: at most one per school (its key), the receiver's URL,
//   the signing secret (`whsec_…`), its state (`active`, `failing`,
//   `disabled`), since when its deliveries have failed and the last error;
// - event_outbox: one row per event, a durable outbox of its own with the
//   delivery columns of the push outbox (status, attempts, next attempt,
//   lease, claim token). `message_id` and `seq` (0, 1, 2, … as they are
//   written) order the events of one message;
//   `body` is the JSON posted, fixed when the event is written so that every
//   retry signs the same bytes.
export const eventsMigration: StoreMigration = {
  async up(db, dialect) {
    const text = textType(dialect);
    await db.schema
      .createTable('event_subscriptions')
      .addColumn('school_key', text, (c) => c.primaryKey())
      .addColumn('url', text, (c) => c.notNull())
      .addColumn('secret', text, (c) => c.notNull())
      .addColumn('state', text, (c) => c.notNull())
      .addColumn('failing_since', text)
      .addColumn('last_error', text)
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('updated_at', text, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('event_outbox')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('school_key', text, (c) => c.notNull())
      .addColumn('message_id', text, (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('type', text, (c) => c.notNull())
      .addColumn('body', text, (c) => c.notNull())
      .addColumn('status', text, (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', text, (c) => c.notNull())
      .addColumn('locked_until', text)
      .addColumn('claim_token', text)
      .addColumn('last_error', text)
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('updated_at', text, (c) => c.notNull())
      .addColumn('sent_at', text)
      .execute();
    // The claim reads due rows in due order (spelled as the claim spells it, for SQLite's partial index).
    await db.schema
      .createIndex('event_outbox_due_idx')
      .on('event_outbox')
      .column('next_attempt_at')
      .where(sql<boolean>`status in ('queued', 'failed', 'sending')`)
      .execute();
    // A message's earlier events (the order per message), a school's counts, the prune by age.
    await db.schema.createIndex('event_outbox_message_idx').on('event_outbox').columns(['message_id', 'seq']).execute();
    await db.schema
      .createIndex('event_outbox_school_idx')
      .on('event_outbox')
      .columns(['school_key', 'status'])
      .execute();
    await db.schema
      .createIndex('event_outbox_updated_idx')
      .on('event_outbox')
      .columns(['status', 'updated_at'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('event_outbox').ifExists().execute();
    await db.schema.dropTable('event_subscriptions').ifExists().execute();
  },
};
