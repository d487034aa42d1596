// Group commit for attempt results: while one batch is being written, the
// results that finish meanwhile wait and go together in the next. An idle
// worker writes each result at once; a busy one commits once per batch
// instead of once per message, which is most of the store's cost per message.
// The store's GroupCommit does the batching, one batch at a time, and at most
// one batch every SPACING_MS: on SQLite a batch is written before the next
// answer can arrive, so without the spacing a worker whose provider answers
// over 50 ms still committed one or two results at a time
// (docs/delivery.md#cpu-per-push).
import { GroupCommit, type DeliveryCompletionEntry } from '../store';
import type { DeliveryStore } from './delivery-store';

// A bound on one transaction, so that a huge burst does not hold the write lock long.
const MAX_BATCH = 500;
// Short beside a provider's answer (tens of ms) and a lease (seconds): what a
// result waits at most while the worker is busy.
export const SPACING_MS = 10;

export class CompletionWriter {
  readonly #batches: GroupCommit<DeliveryCompletionEntry, boolean>;

  constructor(store: DeliveryStore) {
    this.#batches = new GroupCommit({
      write: (entries) => store.completeDeliveries(entries),
      waitMs: 0,
      maxBatch: MAX_BATCH,
      maxInFlight: 1,
      spacingMs: SPACING_MS,
    });
  }

  /** Resolves once written: true when the claim was still current. */
  write(entry: DeliveryCompletionEntry): Promise<boolean> {
    return this.#batches.submit(entry);
  }
}
