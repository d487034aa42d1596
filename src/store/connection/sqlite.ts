import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { SqliteDialect, type CompiledQuery, type Dialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { FALLBACK_AUTOCHECKPOINT_PAGES, startCheckpointer, type Checkpointer } from './sqlite-checkpointer';
import { DEFAULT_LOCK_WAIT, waitingForLocks, type LockWaitOptions } from './sqlite-lock-wait';

export const SQLITE_FILE_NAME = 'service.sqlite';

// Kysely prepares every statement anew; a small cache keyed by SQL text makes
// a repeated query cost one bind and step. Bounded because bulk imports
// produce a few one-off shapes.
const STATEMENT_CACHE_SIZE = 200;

/**
 * A read statement run at once on the connection, synchronously, outside
 * Kysely's executor: its rows, or null when it must take the ordinary path
 * (a transaction is open on the connection, or the statement failed in any
 * way: the ordinary path runs it again, waits for a lock or reports the
 * error as every other statement does). See docs/design.md#storage.
 */
export type ReadNow = <R>(query: CompiledQuery<R>) => R[] | null;

/**
 * Write statements run at once on the connection, synchronously, in one
 * `begin immediate` ... `commit`, outside Kysely's executor: true once
 * committed; false when they must take the ordinary path (a transaction is
 * open on the connection, another process holds the write lock, or a
 * statement failed in any way: nothing is left written, and the ordinary
 * path runs them again, waits for the lock or reports the error as every
 * other statement does). See docs/design.md#storage.
 */
export type WriteNow = (queries: readonly CompiledQuery[]) => boolean;

/** The SQLite connection for Kysely, and the same connection's ReadNow and WriteNow. */
export interface OpenedSqlite {
  readonly dialect: Dialect;
  readonly readNow: ReadNow;
  readonly writeNow: WriteNow;
  /** Settles once everything the connection started is gone (after Kysely's destroy closed it). */
  readonly closed: () => Promise<void>;
}

/**
 * Opens (creating if needed) `<dataDir>/service.sqlite` for Kysely. A lock
 * held by another connection is waited for asynchronously, up to
 * `lockWait.deadlineMs` (sqlite-lock-wait.ts).
 */
export function openSqliteDialect(dataDir: string, lockWait: LockWaitOptions = DEFAULT_LOCK_WAIT): Dialect {
  return openSqlite(dataDir, lockWait).dialect;
}

export function openSqlite(dataDir: string, lockWait: LockWaitOptions = DEFAULT_LOCK_WAIT): OpenedSqlite {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, SQLITE_FILE_NAME);
  const database = new Database(file);
  let checkpointer: Checkpointer;
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
    // Checkpoints run on a thread of their own, not inside this connection's commits (sqlite-checkpointer.ts).
    database.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
    checkpointer = startCheckpointer(file);
  } catch (error) {
    database.close();
    throw error;
  }
  // The reads at once share a read transaction until the event loop's next
  // turn (docs/design.md#reads-share-a-turn-sqlite): in WAL mode each statement
  // outside a transaction takes and drops SQLite's read lock and mark, which
  // cost five times the read itself. Whatever else uses the connection (a
  // write at once, any statement through Kysely, closing) ends it first, so
  // nothing ever runs inside it but those reads, and a write is never kept
  // waiting for it.
  let snapshot = false;
  const endSnapshot = (): void => {
    if (!snapshot) return;
    snapshot = false;
    try {
      if (database.inTransaction) cache.prepare('commit').run([]);
    } catch {
      // A read transaction has nothing to commit: a failure leaves it to SQLite to roll back.
      if (database.inTransaction) database.exec('rollback');
    }
  };
  const cache = withStatementCache(database, checkpointer);
  const statements: SqliteDatabase = {
    prepare(sql) {
      endSnapshot();
      return cache.prepare(sql);
    },
    close() {
      endSnapshot();
      cache.close();
    },
  };
  // better-sqlite3 runs a statement to its end before returning, so outside
  // a transaction nothing else can be half-way through on the connection;
  // inside one (BEGIN IMMEDIATE ... COMMIT spans awaits), a read would see
  // the transaction's uncommitted work, so it waits its turn in Kysely's queue.
  const readNow: ReadNow = <R>(query: CompiledQuery<R>): R[] | null => {
    if (!snapshot) {
      if (database.inTransaction) return null;
      try {
        cache.prepare('begin').run([]);
      } catch {
        return null;
      }
      snapshot = true;
      setImmediate(endSnapshot);
    }
    try {
      return cache.prepare(query.sql).all(query.parameters) as R[];
    } catch {
      endSnapshot();
      return null;
    }
  };
  // The same reasoning for a whole write transaction: begun, written and
  // committed before anything else can run on the connection.
  const writeNow: WriteNow = (queries) => {
    endSnapshot();
    if (database.inTransaction) return false;
    try {
      cache.prepare('begin immediate').run([]);
    } catch {
      return false;
    }
    try {
      for (const query of queries) cache.prepare(query.sql).run(query.parameters);
      cache.prepare('commit').run([]);
      return true;
    } catch {
      if (database.inTransaction) database.exec('rollback');
      return false;
    }
  };
  return {
    dialect: waitingForLocks(new SqliteDialect({ database: statements }), () => database.inTransaction, lockWait),
    readNow,
    writeNow,
    closed: () => checkpointer.exited,
  };
}

function withStatementCache(database: Database.Database, checkpointer: Checkpointer): SqliteDatabase {
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
      // The thread's connection first, so that this one, closing last, checkpoints and removes the log.
      checkpointer.close();
      database.close();
    },
  };
}
