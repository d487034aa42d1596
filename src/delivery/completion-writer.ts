// Group commit for attempt results: while one batch is being written, the
// results that finish meanwhile wait and go together in the next. An idle
// worker writes each result at once; a busy one commits once per batch
// instead of once per message, which is most of the store's cost per message.
// The store's GroupCommit does the batching, one batch at a time.
import { GroupCommit, type DeliveryCompletionEntry } from '../store';
import type { DeliveryStore } from './delivery-store';

// A bound on one transaction, so that a huge burst does not hold the write lock long.
const MAX_BATCH = 500;

export class CompletionWriter {
  readonly #batches: GroupCommit<DeliveryCompletionEntry, boolean>;

  constructor(store: DeliveryStore) {
    this.#batches = new GroupCommit({
      write: (entries) => store.completeDeliveries(entries),
      waitMs: 0,
      maxBatch: MAX_BATCH,
      maxInFlight: 1,
    });
  }

  /** Resolves once written: true when the claim was still current. */
  write(entry: DeliveryCompletionEntry): Promise<boolean> {
    return this.#batches.submit(entry);
  }
}
