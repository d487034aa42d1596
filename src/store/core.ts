// What every role of the store shares (docs/design.md#storage): the Kysely
// database, its dialect, the clock, and the runner every call goes through.
// The roles (records, outbox, data set, access, admin) are built over one
// core by openStore(); closing the core refuses every role's calls at once.
import type { CompiledQuery, Kysely } from 'kysely';
import { InvalidDataSetError } from './data-set/data-set-values';
import type { StoreDatabase } from './database';
import { StoreError, toStoreError } from './errors';
import { inWriteTransaction } from './connection/transaction';
import type { StoreDialect } from './migrations';
import type { ReadNow, WriteNow } from './connection/sqlite';
import type { Tracer } from '../trace';

export interface StoreCore {
  readonly db: Kysely<StoreDatabase>;
  readonly dialect: StoreDialect;
  /** Tracing, or null when off (docs/operating.md#traces). */
  readonly tracer: Tracer | null;
  /** Source of timestamps; tests pin it. */
  readonly now: () => Date;
  /** `now()` as an ISO time. */
  readonly timestamp: () => string;
  /**
   * Every public call of a role funnels through here, so that callers only
   * ever see a StoreError (or an InvalidDataSetError describing their input),
   * and none starts once the store is closing.
   */
  readonly run: <T>(work: () => Promise<T>) => Promise<T>;
  /**
   * The rows of a read statement, on the ordinary path through `run` and
   * Kysely's executor, or at once on SQLite when nothing holds the
   * connection in a transaction (connection/sqlite.ts, ReadNow): the hot
   * reads' way around the executor's promises and queue.
   */
  readonly read: <R>(query: CompiledQuery<R>) => Promise<R[]>;
  /**
   * As `read`, but the rows themselves when SQLite read them at once, with no
   * promise: for an operation that can then answer in the same turn
   * (docs/benchmark.md#fourth-round). A promise on every other path.
   */
  readonly readSettled: <R>(query: CompiledQuery<R>) => R[] | Promise<R[]>;
  /**
   * The statements in one read-write transaction, through `run` and Kysely's
   * executor, or at once on SQLite when nothing holds the connection
   * (connection/sqlite.ts, WriteNow): the outbox insert's way around them.
   */
  readonly write: (queries: readonly CompiledQuery[]) => Promise<void>;
  /** `work` in one read-write transaction (see connection/transaction.ts). */
  readonly writeTransaction: <T>(work: (trx: Kysely<StoreDatabase>) => Promise<T>) => Promise<T>;
  /** True once close() began. */
  readonly closing: boolean;
  /**
   * Refuses new calls at once (StoreError "unavailable"), lets those under
   * way finish, then releases the database. Safe to repeat.
   */
  readonly close: () => Promise<void>;
}

// How long close() lets calls already under way finish. Destroying a pg pool
// under them would leave queued requests waiting forever.
const CLOSE_GRACE_MS = 10_000;

export function createStoreCore(
  db: Kysely<StoreDatabase>,
  dialect: StoreDialect,
  now: () => Date,
  release: () => Promise<void>,
  tracer: Tracer | null = null,
  readNow: ReadNow | null = null,
  writeNow: WriteNow | null = null,
): StoreCore {
  let closing: Promise<void> | null = null;
  let active = 0;
  let onIdle: (() => void) | null = null;

  const drain = async (): Promise<void> => {
    if (active === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => {
        onIdle = resolve;
      }),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_GRACE_MS);
      }),
    ]);
    clearTimeout(timer);
  };

  const run = async <T>(work: () => Promise<T>): Promise<T> => {
    if (closing !== null) throw new StoreError('unavailable');
    active++;
    try {
      return await work();
    } catch (error) {
      if (error instanceof InvalidDataSetError) throw error;
      throw toStoreError(error);
    } finally {
      active--;
      if (active === 0) onIdle?.();
    }
  };

  return {
    db,
    dialect,
    tracer,
    now,
    timestamp: () => now().toISOString(),
    run,
    read: <R>(query: CompiledQuery<R>): Promise<R[]> => {
      // Closing: the ordinary path refuses it as it refuses every call.
      const rows = readNow === null || closing !== null ? null : readNow(query);
      return rows !== null ? Promise.resolve(rows) : run(async () => (await db.executeQuery(query)).rows);
    },
    readSettled: <R>(query: CompiledQuery<R>): R[] | Promise<R[]> => {
      const rows = readNow === null || closing !== null ? null : readNow(query);
      return rows !== null ? rows : run(async () => (await db.executeQuery(query)).rows);
    },
    write: (queries) => {
      if (writeNow !== null && closing === null && writeNow(queries)) return Promise.resolve();
      return run(() =>
        inWriteTransaction(db, dialect, async (trx) => {
          for (const query of queries) await trx.executeQuery(query);
        }),
      );
    },
    writeTransaction: (work) => inWriteTransaction(db, dialect, work),
    get closing() {
      return closing !== null;
    },
    close: () => {
      closing ??= drain().then(() =>
        // A failure to close leaves nothing the caller could do differently.
        release().catch(() => undefined),
      );
      return closing;
    },
  };
}
