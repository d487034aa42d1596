import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';

export const SQLITE_FILE_NAME = 'service.sqlite';

// Kysely prepares every statement anew; a small cache keyed by SQL text makes
// a repeated query cost one bind and step. Bounded because bulk imports
// produce a few one-off shapes.
const STATEMENT_CACHE_SIZE = 200;

/** Opens (creating if needed) `<dataDir>/service.sqlite` for Kysely. */
export function openSqliteDialect(dataDir: string): SqliteDialect {
  mkdirSync(dataDir, { recursive: true });
  const database = new Database(path.join(dataDir, SQLITE_FILE_NAME));
  try {
    // WAL lets readers proceed during a write (a separate worker process);
    // busy_timeout makes a writer wait for the lock instead of failing.
    database.pragma('journal_mode = WAL');
    database.pragma('busy_timeout = 5000');
    database.pragma('foreign_keys = ON');
    // With WAL, NORMAL still survives a crash of the process; only a power
    // loss can drop the last commits. FULL would fsync on every write while
    // the single connection blocks all other requests.
    database.pragma('synchronous = NORMAL');
  } catch (error) {
    database.close();
    throw error;
  }
  return new SqliteDialect({ database: withStatementCache(database) });
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
