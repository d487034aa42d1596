import { sql, type Kysely } from 'kysely';
import { textType } from './column-types';
import type { StoreMigration } from './migration';

// The operators' console (docs/console.md):
// - console_accounts: who may sign in, with a bcrypt hash and a role
//   (viewer, operator, admin); `disabled` keeps the name in the audit trail's
//   sense while refusing sign-ins;
// - console_sessions: one row per signed-in browser, keyed by the SHA-256 of
//   the cookie's value (a copy of the table signs nobody in), read by every
//   node, deleted at sign-out;
// - outbox_attempts: one row per delivery attempt of an outbox message, with
//   the provider's answer code and the masked error, written in the same
//   statements as the attempt's result (src/store/outbox/outbox-claims.ts)
//   and pruned with the messages;
// - delivery_workers: each running delivery worker's heartbeat, so that the
//   console's overview can say whether anything is sending
//   (src/delivery/heartbeat.ts);
// - students.search_name: the name as the console's search compares it
//   (src/store/records/student-search.ts), computed by the database on
//   every write whichever path writes (import, admin API, console), and
//   indexed.
// The search column as this release computed it: lower case, without the
// harakat U+064B to U+0652, the dagger alef and the tatweel. Frozen here;
// 0012 replaces it with the folding of src/store/records/search-name.ts.
export const SEARCH_NAME_0008 = [
  '\u064B',
  '\u064C',
  '\u064D',
  '\u064E',
  '\u064F',
  '\u0650',
  '\u0651',
  '\u0652',
  '\u0670',
  '\u0640',
].reduce((inner, ch) => `replace(${inner}, '${ch}', '')`, `lower(full_name)`);

export const consoleMigration: StoreMigration = {
  async up(db, dialect) {
    const text = textType(dialect);
    await db.schema
      .createTable('console_accounts')
      .addColumn('name', text, (c) => c.primaryKey())
      .addColumn('password_hash', text, (c) => c.notNull())
      .addColumn('role', text, (c) => c.notNull())
      .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('updated_at', text, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('console_sessions')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('account', text, (c) => c.notNull())
      .addColumn('csrf', text, (c) => c.notNull())
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('last_seen_at', text, (c) => c.notNull())
      .execute();
    // Sign-out everywhere and account changes delete by account; the pruning by age.
    await db.schema.createIndex('console_sessions_account_idx').on('console_sessions').column('account').execute();
    await db.schema.createIndex('console_sessions_seen_idx').on('console_sessions').column('last_seen_at').execute();

    await db.schema
      .createTable('outbox_attempts')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('channel', text, (c) => c.notNull())
      .addColumn('message_id', text, (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('at', text, (c) => c.notNull())
      .addColumn('outcome', text, (c) => c.notNull())
      .addColumn('code', text)
      .addColumn('error', text)
      .addColumn('next_attempt_at', text)
      .execute();
    // A message's history in order; the overview's counts per minute and hour.
    await db.schema
      .createIndex('outbox_attempts_message_idx')
      .on('outbox_attempts')
      .columns(['message_id', 'at'])
      .execute();
    await db.schema.createIndex('outbox_attempts_at_idx').on('outbox_attempts').columns(['at']).execute();

    await db.schema
      .createTable('delivery_workers')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('started_at', text, (c) => c.notNull())
      .addColumn('beat_at', text, (c) => c.notNull())
      .execute();

    // SQLite adds only virtual generated columns to an existing table; PostgreSQL only stored ones. Both index them.
    const kind = dialect === 'sqlite' ? sql`virtual` : sql`stored`;
    await sql`alter table students add column search_name ${text} generated always as (${sql.raw(SEARCH_NAME_0008)}) ${kind}`.execute(
      db,
    );
    await db.schema.createIndex('students_search_name_idx').on('students').columns(['search_name', 'id']).execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('students_search_name_idx').ifExists().execute();
    await db.schema.alterTable('students').dropColumn('search_name').execute();
    await db.schema.dropTable('delivery_workers').ifExists().execute();
    await db.schema.dropTable('outbox_attempts').ifExists().execute();
    await db.schema.dropTable('console_sessions').ifExists().execute();
    await db.schema.dropTable('console_accounts').ifExists().execute();
  },
};
