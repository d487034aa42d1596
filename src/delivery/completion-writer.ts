// Group commit for attempt results: while one batch is being written, the
// results that finish meanwhile wait and go together in the next. An idle
// worker writes each result at once; a busy one commits once per batch
// instead of once per message, which is most of the store's cost per message.
import type { DeliveryCompletionEntry } from '../store';
import type { DeliveryStore } from './delivery-store';

interface Pending {
  readonly entry: DeliveryCompletionEntry;
  resolve(current: boolean): void;
  reject(error: unknown): void;
}

// A bound on one transaction, so that a huge burst does not hold the write lock long.
const MAX_BATCH = 500;

export class CompletionWriter {
  readonly #store: DeliveryStore;
  #pending: Pending[] = [];
  #writing = false;

  constructor(store: DeliveryStore) {
    this.#store = store;
  }

  /** Resolves once written: true when the claim was still current. */
  write(entry: DeliveryCompletionEntry): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ entry, resolve, reject });
      if (this.#writing) return;
      this.#writing = true;
      // After the I/O callbacks of this turn: every answer that arrived with
      // this one joins the batch.
      setImmediate(() => void this.#flush());
    });
  }

  async #flush(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending.splice(0, MAX_BATCH);
      try {
        const results = await this.#store.completeDeliveries(batch.map((p) => p.entry));
        batch.forEach((p, i) => p.resolve(results[i] ?? false));
      } catch (error) {
        for (const p of batch) p.reject(error);
      }
    }
    this.#writing = false;
  }
}
