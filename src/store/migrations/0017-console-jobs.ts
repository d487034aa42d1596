import { type Kysely } from 'kysely';
import { textType } from './column-types';
import type { StoreMigration } from './migration';

// State of the console that any node must be able to serve (docs/console.md#importing-a-roster,
// docs/console.md#signing-in), kept in the store rather than in one process's memory:
// - console_uploads: a roster uploaded for import: its name, collection,
//   size, number of chunks and the account that uploaded it; deleted an hour
//   after the upload;
// - console_upload_chunks: the file itself (at most 32 MiB), in chunks of
//   about 1 MiB written as the form arrives and read back one at a time, so
//   that no statement moves the whole file at once (docs/design.md);
// - console_import_jobs: the dry run and the apply of an upload, one row
//   each, with their progress and their report (JSON), claimed by a node's
//   background slot with a lease and a claim token, as the outbox's messages
//   are (src/store/import-jobs.ts). `active` is 1 while a job is
//   queued or running and null after: its unique index lets one job at a
//   time exist across every node (nulls do not collide);
// - console_sign_in_failures: the sign-in throttle's counts per account name
//   and per address, one row per key holding its current window;
// - console_sign_in_trust: until when an address that signed in as an
//   account is exempt from that account's count.
export const consoleJobsMigration: StoreMigration = {
  async up(db, dialect) {
    const text = textType(dialect);
    const bytes = dialect === 'postgres' ? 'bytea' : 'blob';
    await db.schema
      .createTable('console_uploads')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('account', text, (c) => c.notNull())
      .addColumn('file_name', text, (c) => c.notNull())
      .addColumn('collection', text)
      .addColumn('size', 'integer', (c) => c.notNull())
      .addColumn('chunks', 'integer', (c) => c.notNull())
      .addColumn('uploaded_at', text, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('console_uploads_at_idx').on('console_uploads').column('uploaded_at').execute();
    await db.schema
      .createTable('console_upload_chunks')
      .addColumn('upload_id', text, (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      // Before the bytes: SQLite reads a row's columns in order, and a column after a 1 MiB value is
      // reached only through its overflow pages.
      .addColumn('stored_at', text, (c) => c.notNull())
      .addColumn('data', bytes, (c) => c.notNull())
      .addPrimaryKeyConstraint('console_upload_chunks_pk', ['upload_id', 'seq'])
      .execute();
    await db.schema
      .createIndex('console_upload_chunks_at_idx')
      .on('console_upload_chunks')
      .column('stored_at')
      .execute();

    await db.schema
      .createTable('console_import_jobs')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('upload_id', text, (c) => c.notNull())
      .addColumn('kind', text, (c) => c.notNull())
      .addColumn('state', text, (c) => c.notNull())
      .addColumn('active', 'integer')
      .addColumn('stage', text, (c) => c.notNull())
      .addColumn('done', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('total', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('report', text)
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('locked_until', text)
      .addColumn('claim_token', text)
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('updated_at', text, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('console_import_jobs_active_idx')
      .on('console_import_jobs')
      .column('active')
      .unique()
      .execute();
    await db.schema
      .createIndex('console_import_jobs_upload_idx')
      .on('console_import_jobs')
      .columns(['upload_id', 'kind'])
      .unique()
      .execute();

    await db.schema
      .createTable('console_sign_in_failures')
      .addColumn('key', text, (c) => c.primaryKey())
      .addColumn('window_start', text, (c) => c.notNull())
      .addColumn('count', 'integer', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('console_sign_in_failures_window_idx')
      .on('console_sign_in_failures')
      .column('window_start')
      .execute();
    await db.schema
      .createTable('console_sign_in_trust')
      .addColumn('key', text, (c) => c.primaryKey())
      .addColumn('until', text, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('console_sign_in_trust_until_idx')
      .on('console_sign_in_trust')
      .column('until')
      .execute();
  },
  async down(db: Kysely<unknown>) {
    const tables = [
      'console_sign_in_trust',
      'console_sign_in_failures',
      'console_import_jobs',
      'console_upload_chunks',
      'console_uploads',
    ];
    for (const table of tables) await db.schema.dropTable(table).ifExists().execute();
  },
};
