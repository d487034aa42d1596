import type { Kysely } from 'kysely';
import { textType } from './column-types';
import type { StoreMigration } from './migration';

// The W3C traceparent of the span that queued a message, kept with its row so
// that the worker's send span can link back to the call that asked for it
// (docs/operating.md#traces). Null for rows queued without tracing: only
// trace and span ids and flags, never anything of the message.
const TABLES = ['push_notifications', 'auth_code_messages'] as const;

export const traceContextMigration: StoreMigration = {
  async up(db, dialect) {
    for (const table of TABLES) await db.schema.alterTable(table).addColumn('traceparent', textType(dialect)).execute();
  },
  async down(db: Kysely<unknown>) {
    for (const table of TABLES) await db.schema.alterTable(table).dropColumn('traceparent').execute();
  },
};
