import type { CompiledQuery, Dialect, QueryResult } from 'kysely';
import { patchedDialect } from './patched-dialect';

// better-sqlite3 is synchronous: with a busy_timeout, a statement that meets
// a write lock held by another connection (the sqlite3 shell, a backup tool,
// a second process) waits for it on the event loop, and every request of the
// process waits with it. So the file is opened with busy_timeout 0, a
// statement that meets the lock fails at once with SQLITE_BUSY, and the wait
// happens here instead: the connection is given back (reads keep answering in
// WAL, they need no write lock), and the statement is tried again after a
// growing pause until a deadline, after which its SQLITE_BUSY leaves as the
// store's "unavailable" (errors.ts), the same fault as a PostgreSQL outage
// (docs/operating.md#storage).
//
// Only a statement run outside a transaction is tried again: SQLite undid it
// whole, so nothing of it was applied. A write transaction begins with BEGIN
// IMMEDIATE (transaction.ts), which takes the write lock before any of its
// work runs, so it is that BEGIN that waits here and the work runs once. A
// statement that fails inside a transaction is not retried: the transaction's
// own caller rolls it back and reports it.

export interface LockWaitOptions {
  /** How long a statement waits for a lock held by another connection before failing. */
  readonly deadlineMs: number;
  /** The first pause between tries; each pause doubles up to `maxPauseMs`. */
  readonly firstPauseMs: number;
  readonly maxPauseMs: number;
  /** Clock and timer; tests may pin them. */
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_LOCK_WAIT: LockWaitOptions = { deadlineMs: 5_000, firstPauseMs: 2, maxPauseMs: 50 };

/** True for SQLite's "the database is locked by another connection" (SQLITE_BUSY and its extended codes). */
export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'));
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * `dialect` (SQLite's, over one better-sqlite3 connection) whose statements
 * wait for another connection's lock without holding the event loop or the
 * connection. `inTransaction` tells whether the connection has a transaction
 * open (better-sqlite3's `Database#inTransaction`).
 */
export function waitingForLocks(dialect: Dialect, inTransaction: () => boolean, options: LockWaitOptions): Dialect {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  return patchedDialect(dialect, (connection, { acquire, release }) => {
    const execute = connection.executeQuery.bind(connection);
    connection.executeQuery = async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
      let deadline: number | null = null;
      let pause = options.firstPauseMs;
      for (;;) {
        try {
          return await execute<R>(query);
        } catch (error) {
          if (!isSqliteBusy(error) || inTransaction()) throw error;
          deadline ??= now() + options.deadlineMs;
          if (now() + pause > deadline) throw error;
        }
        // Nothing of ours is open on the connection: let other calls
        // (reads above all) use it while this one waits, then queue
        // for it again like any other call.
        await release(connection);
        try {
          await sleep(pause);
        } finally {
          await acquire();
        }
        pause = Math.min(pause * 2, options.maxPauseMs);
      }
    };
  });
}
