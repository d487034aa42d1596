import type { Kysely } from 'kysely';
import { textType } from './column-types';
import type { StoreMigration } from './migration';

// Access control (docs/access-limits.md):
// - access_audit: one row per read of personal data, allowed or refused,
//   listed newest first by the admin API with equality filters, and pruned by
//   time (AUDIT_RETENTION_DAYS);
// - access_counters: the call budgets' per-window totals, to which every node
//   adds what it counted every few seconds (src/access/call-budgets.ts).
export const accessMigration: StoreMigration = {
  async up(db, dialect) {
    const text = textType(dialect);
    await db.schema
      .createTable('access_audit')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('at', text, (c) => c.notNull())
      .addColumn('address', text)
      .addColumn('user', text)
      .addColumn('endpoint', text, (c) => c.notNull())
      .addColumn('operation', text, (c) => c.notNull())
      .addColumn('subject_kind', text)
      .addColumn('subject', text)
      .addColumn('outcome', text, (c) => c.notNull())
      .addColumn('reason', text)
      .execute();
    // Listing is newest first; the usual questions are "who read this
    // student" and "what did this caller read", each over a time range.
    await db.schema.createIndex('access_audit_at_idx').on('access_audit').columns(['at', 'id']).execute();
    await db.schema.createIndex('access_audit_subject_at_idx').on('access_audit').columns(['subject', 'at']).execute();
    await db.schema.createIndex('access_audit_address_at_idx').on('access_audit').columns(['address', 'at']).execute();
    await db.schema.createIndex('access_audit_user_at_idx').on('access_audit').columns(['user', 'at']).execute();

    await db.schema
      .createTable('access_counters')
      // `<window ms>|<budget>|<caller>`: one text key keeps the merge a plain upsert.
      .addColumn('counter', text, (c) => c.notNull())
      .addColumn('window_start', text, (c) => c.notNull())
      .addColumn('window_end', text, (c) => c.notNull())
      .addColumn('count', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('access_counters_pk', ['counter', 'window_start'])
      .execute();
    await db.schema.createIndex('access_counters_end_idx').on('access_counters').column('window_end').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('access_counters').ifExists().execute();
    await db.schema.dropTable('access_audit').ifExists().execute();
  },
};
