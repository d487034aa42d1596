import type { DeleteResult } from 'kysely';

/** Rows deleted per statement by the retention prunes (outbox, audit trail). */
export const PRUNE_BATCH = 500;

/**
 * Runs `deleteBatch` (one DELETE of at most `batch` rows) until a batch comes
 * back short or `signal` is aborted; returns how many rows went. Between
 * batches it yields to the event loop: better-sqlite3 works synchronously,
 * and without the yield a large backlog would hold every request up.
 */
export async function deleteInBatches(
  deleteBatch: () => Promise<DeleteResult>,
  batch: number,
  signal?: AbortSignal,
): Promise<number> {
  let total = 0;
  while (signal?.aborted !== true) {
    const deleted = Number((await deleteBatch()).numDeletedRows);
    total += deleted;
    if (deleted < batch) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return total;
}
