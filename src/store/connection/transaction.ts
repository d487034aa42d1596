import { CompiledQuery, type Kysely } from 'kysely';
import type { StoreDialect } from '../migrations';

// SQLite's default deferred transaction takes the write lock only at the first
// write; if another process (a separate worker) wrote after our first read,
// that upgrade fails at once with SQLITE_BUSY instead of waiting. Taking the
// lock up front lets busy_timeout do its job.
const BEGIN: Record<StoreDialect, CompiledQuery> = {
  sqlite: CompiledQuery.raw('begin immediate'),
  postgres: CompiledQuery.raw('begin'),
};
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');

/** Runs `work` on one connection inside a read-write transaction. */
export function inWriteTransaction<DB, T>(
  db: Kysely<DB>,
  dialect: StoreDialect,
  work: (trx: Kysely<DB>) => Promise<T>,
): Promise<T> {
  return db.connection().execute(async (connection) => {
    await connection.executeQuery(BEGIN[dialect]);
    let result: T;
    try {
      result = await work(connection);
    } catch (error) {
      // The original failure is the one worth reporting; a failed rollback
      // usually means the connection is already gone.
      await connection.executeQuery(ROLLBACK).catch(() => undefined);
      throw error;
    }
    await connection.executeQuery(COMMIT);
    return result;
  });
}
