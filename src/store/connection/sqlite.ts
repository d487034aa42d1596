import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { SqliteDialect, type Dialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { DEFAULT_LOCK_WAIT, waitingForLocks, type LockWaitOptions } from './sqlite-lock-wait';

export const SQLITE_FILE_NAME = 'service.sqlite';

// Kysely prepares every statement anew; a small cache keyed by SQL text makes
// a repeated query cost one bind and step. Bounded because bulk imports
// produce a few one-off shapes.
const STATEMENT_CACHE_SIZE = 200;

/**
 * Opens (creating if needed) `<dataDir>/service.sqlite` for Kysely. A lock
 * held by another connection is waited for asynchronously, up to
 * `lockWait.deadlineMs` (sqlite-lock-wait.ts).
 */
export function openSqliteDialect(dataDir: string, lockWait: LockWaitOptions = DEFAULT_LOCK_WAIT): Dialect {
  mkdirSync(dataDir, { recursive: true });
  const database = new Database(path.join(dataDir, SQLITE_FILE_NAME));
  try {
    // WAL lets readers proceed during a write (a separate worker process).
    // busy_timeout 0: a statement that meets another connection's lock fails
    // at once, and waits for it off the event loop (sqlite-lock-wait.ts);
    // SQLite's own wait would freeze the whole process.
    database.pragma('journal_mode = WAL');
    database.pragma('busy_timeout = 0');
    database.pragma('foreign_keys = ON');
    // With WAL, NORMAL still survives a crash of the process; only a power
    // loss can drop the last commits. FULL would fsync on every write while
    // the single connection blocks all other requests.
    database.pragma('synchronous = NORMAL');
  } catch (error) {
    database.close();
    throw error;
  }
  return waitingForLocks(
    new SqliteDialect({ database: withStatementCache(database) }),
    () => database.inTransaction,
    lockWait,
  );
}

function withStatementCache(database: Database.Database): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    prepare(sql) {
      const cached = statements.get(sql);
      if (cached !== undefined) return cached;
      const statement = database.prepare(sql);
      if (statements.size >= STATEMENT_CACHE_SIZE) {
        const oldest = statements.keys().next().value;
        if (oldest !== undefined) statements.delete(oldest);
      }
      statements.set(sql, statement);
      return statement;
    },
    close() {
      statements.clear();
      database.close();
    },
  };
}
