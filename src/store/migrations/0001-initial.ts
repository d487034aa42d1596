import type { Kysely } from 'kysely';
import { textType } from './column-types';
import type { StoreDialect, StoreMigration } from './migration';

// Outbox tables share their delivery columns so that one worker loop can
// claim rows from either (status + next_attempt_at, leased by locked_until).
async function createDomainTables(db: Kysely<unknown>, dialect: StoreDialect): Promise<void> {
  const text = textType(dialect);

  await db.schema
    .createTable('schools')
    .addColumn('key', text, (c) => c.primaryKey())
    .addColumn('base_url', text, (c) => c.notNull())
    .addColumn('name', text, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('students')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('school_key', text, (c) => c.notNull().references('schools.key'))
    .addColumn('full_name', text, (c) => c.notNull())
    .addColumn('device_id', text)
    .addColumn('active', 'char(1)', (c) => c.notNull())
    .addColumn('class_id', text)
    .execute();
  await db.schema
    .createIndex('students_school_active_name_idx')
    .on('students')
    .columns(['school_key', 'active', 'full_name', 'id'])
    .execute();

  await db.schema
    .createTable('devices')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('push_token', text)
    .addColumn('platform', text)
    .addColumn('updated_at', text, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('notes')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('student_id', text, (c) => c.notNull())
    .addColumn('type', text, (c) => c.notNull())
    .addColumn('subject_id', text)
    .addColumn('class_id', text)
    .addColumn('text', text, (c) => c.notNull())
    .addColumn('note_date', text, (c) => c.notNull())
    .addColumn('badge', text)
    .addColumn('state', text, (c) => c.notNull())
    .addColumn('read_at', text)
    .execute();
  await db.schema
    .createIndex('notes_type_subject_class_date_idx')
    .on('notes')
    .columns(['type', 'subject_id', 'class_id', 'note_date'])
    .execute();
  await db.schema.createIndex('notes_student_type_idx').on('notes').columns(['student_id', 'type']).execute();

  await db.schema
    .createTable('absences')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('student_id', text, (c) => c.notNull())
    .addColumn('absence_date', text, (c) => c.notNull())
    .addColumn('type', text, (c) => c.notNull())
    .addColumn('reason', text)
    .addColumn('seen', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('seen_at', text)
    .execute();
  await db.schema
    .createIndex('absences_student_date_idx')
    .on('absences')
    .columns(['student_id', 'absence_date'])
    .execute();
}

async function createOutboxTables(db: Kysely<unknown>, dialect: StoreDialect): Promise<void> {
  const text = textType(dialect);

  await db.schema
    .createTable('push_notifications')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('device_id', text, (c) => c.notNull())
    .addColumn('student_id', text, (c) => c.notNull())
    .addColumn('type', text, (c) => c.notNull())
    .addColumn('title', text, (c) => c.notNull())
    .addColumn('body', text, (c) => c.notNull())
    .addColumn('data', text, (c) => c.notNull())
    .addColumn('status', text, (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', text, (c) => c.notNull())
    .addColumn('locked_until', text)
    .addColumn('last_error', text)
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .addColumn('sent_at', text)
    .execute();
  await db.schema
    .createIndex('push_notifications_status_next_idx')
    .on('push_notifications')
    .columns(['status', 'next_attempt_at'])
    .execute();

  await db.schema
    .createTable('auth_code_messages')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('phone', text, (c) => c.notNull())
    .addColumn('code', text)
    .addColumn('status', text, (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', text, (c) => c.notNull())
    .addColumn('locked_until', text)
    .addColumn('last_error', text)
    .addColumn('caller_address', text)
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .addColumn('sent_at', text)
    .execute();
  await db.schema
    .createIndex('auth_code_messages_status_next_idx')
    .on('auth_code_messages')
    .columns(['status', 'next_attempt_at'])
    .execute();
  // The rate limits count recent messages per phone and per caller address.
  await db.schema
    .createIndex('auth_code_messages_phone_created_idx')
    .on('auth_code_messages')
    .columns(['phone', 'created_at'])
    .execute();
  await db.schema
    .createIndex('auth_code_messages_caller_created_idx')
    .on('auth_code_messages')
    .columns(['caller_address', 'created_at'])
    .execute();
}

export const initialMigration: StoreMigration = {
  async up(db, dialect) {
    await createDomainTables(db, dialect);
    await createOutboxTables(db, dialect);
  },
  async down(db) {
    // Children before parents: students reference schools.
    for (const table of [
      'auth_code_messages',
      'push_notifications',
      'absences',
      'notes',
      'devices',
      'students',
      'schools',
    ]) {
      await db.schema.dropTable(table).ifExists().execute();
    }
  },
};
