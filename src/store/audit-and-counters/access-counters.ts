// The call budgets' cross-node merge (src/access/call-budgets.ts): each node
// adds what it counted since its last merge to the shared per-window rows,
// and reads back the totals of the windows it is counting, in one
// transaction every few seconds; never on the call path.
import type { Kysely } from 'kysely';
import type { StoreDatabase } from '../database';
import { PRUNE_BATCH, deleteInBatches } from '../delete-in-batches';

export interface CounterWindow {
  /** `<window ms>|<budget>|<caller>`. */
  readonly counter: string;
  /** ISO time the window starts. */
  readonly windowStart: string;
}

export interface CounterDelta extends CounterWindow {
  /** ISO time the window ends (rows are pruned by it). */
  readonly windowEnd: string;
  /** Calls counted since the last merge; more than 0. */
  readonly delta: number;
}

export interface CounterMerge {
  /** What this node adds. */
  readonly deltas: readonly CounterDelta[];
  /** The windows whose totals it wants back besides those of `deltas`. */
  readonly reads: readonly CounterWindow[];
  /**
   * Also the totals of the busiest counters of windows not yet over at
   * `at` (ISO time), at most `limit`: callers this node has not seen yet
   * may have spent their budget on others.
   */
  readonly busiest?: { readonly at: string; readonly limit: number };
}

// Rows per statement: far below either database's limit on parameters.
const CHUNK = 500;

const windowKey = (counter: string, windowStart: string): string => `${windowStart}\u0000${counter}`;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * Adds the deltas and returns the merged totals of every window named in
 * `deltas` and `reads` (a window no node has written is absent: 0), and of
 * the busiest current ones. Run it
 * in a transaction: a failure then adds nothing, and the caller may send the
 * same deltas again.
 */
export async function mergeCounters(db: Kysely<StoreDatabase>, merge: CounterMerge): Promise<Map<string, number>> {
  const totals = new Map<string, number>();
  // In one order on every node, so that two merges under way at once wait
  // for each other's row locks instead of deadlocking (PostgreSQL).
  const deltas = [...merge.deltas].sort((a, b) =>
    a.counter < b.counter ? -1 : a.counter > b.counter ? 1 : a.windowStart < b.windowStart ? -1 : 1,
  );
  for (const part of chunks(deltas)) {
    const rows = await db
      .insertInto('access_counters')
      .values(
        part.map((d) => ({ counter: d.counter, window_start: d.windowStart, window_end: d.windowEnd, count: d.delta })),
      )
      .onConflict((oc) =>
        oc
          .columns(['counter', 'window_start'])
          .doUpdateSet((eb) => ({ count: eb('access_counters.count', '+', eb.ref('excluded.count')) })),
      )
      .returning(['counter', 'window_start', 'count'])
      .execute();
    for (const row of rows) totals.set(windowKey(row.counter, row.window_start), Number(row.count));
  }
  for (const part of chunks(merge.reads)) {
    const wanted = new Set(part.map((w) => windowKey(w.counter, w.windowStart)));
    const rows = await db
      .selectFrom('access_counters')
      .select(['counter', 'window_start', 'count'])
      .where('counter', 'in', [...new Set(part.map((w) => w.counter))])
      .execute();
    for (const row of rows) {
      const key = windowKey(row.counter, row.window_start);
      if (wanted.has(key)) totals.set(key, Number(row.count));
    }
  }
  if (merge.busiest !== undefined && merge.busiest.limit > 0) {
    const rows = await db
      .selectFrom('access_counters')
      .select(['counter', 'window_start', 'count'])
      .where('window_end', '>', merge.busiest.at)
      .orderBy('count', 'desc')
      .limit(merge.busiest.limit)
      .execute();
    for (const row of rows) totals.set(windowKey(row.counter, row.window_start), Number(row.count));
  }
  return totals;
}

/**
 * Deletes the rows of windows that ended before `before` (ISO time), in
 * batches (deleteInBatches); how many. Its own statements, outside the
 * merge's transaction.
 */
export function pruneCounters(db: Kysely<StoreDatabase>, before: string, batch = PRUNE_BATCH): Promise<number> {
  return deleteInBatches(
    () =>
      db
        .deleteFrom('access_counters')
        .where('counter', 'in', (eb) =>
          eb
            .selectFrom('access_counters as old')
            .select('old.counter')
            .where('old.window_end', '<', before)
            .limit(batch),
        )
        .where('window_end', '<', before)
        .executeTakeFirst(),
    batch,
  );
}

/** The key `mergeCounters` files a window's total under. */
export const counterTotalKey = (window: CounterWindow): string => windowKey(window.counter, window.windowStart);
