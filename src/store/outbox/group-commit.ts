// Group commit for calls that each write a row: on PostgreSQL every commit is
// a round trip and a WAL flush, so a burst of calls committed one by one is
// bounded by the database's latency, not by its capacity. Calls that arrive
// together are written by one statement (or one transaction) instead.
// On SQLite a commit is no round trip but appends every page the rows
// touched to the WAL: the push notifications of one turn share it there too
// (docs/design.md#storage).
//
// The rules (docs/delivery.md, "PostgreSQL at scale"):
// - with no batch being written, what arrived in this turn of the event loop
//   goes at once: an idle service adds no wait;
// - while batches are being written, new calls gather for at most `waitMs`,
//   or until a batch finishes, or until `maxBatch` are waiting;
// - at most `maxInFlight` batches are written at once (the pool has other work);
// - each call settles only once its batch committed, and a failure fails
//   exactly the calls of that batch;
// - with `spacingMs`, a batch starts no sooner than that after the one before
//   it started: a writer that wrote a moment ago gathers what arrives until
//   then (on SQLite a write ends before the next call can arrive, so without
//   it a busy writer still commits almost every item on its own), while one
//   that has been quiet for longer writes at once.

export interface GroupCommitOptions<Item, Result> {
  /** Writes the items in one transaction; one result per item, in order. */
  readonly write: (items: readonly Item[]) => Promise<readonly Result[]>;
  /** Longest a call waits for others while earlier batches are being written. */
  readonly waitMs: number;
  readonly maxBatch: number;
  readonly maxInFlight: number;
  /** Least time between the starts of two batches (a full batch does not wait); 0 or unset: none. */
  readonly spacingMs?: number;
}

/** How calls are grouped, whatever they write. */
export type GroupCommitBatching = Omit<GroupCommitOptions<unknown, unknown>, 'write'>;

interface Pending<Item, Result> {
  readonly item: Item;
  resolve(result: Result): void;
  reject(error: unknown): void;
}

export class GroupCommit<Item, Result> {
  readonly #options: GroupCommitOptions<Item, Result>;
  #pending: Pending<Item, Result>[] = [];
  #inFlight = 0;
  #timer: NodeJS.Timeout | null = null;
  #immediate: NodeJS.Immediate | null = null;
  // When the last batch started (performance.now()), for spacingMs.
  #lastStart = Number.NEGATIVE_INFINITY;

  constructor(options: GroupCommitOptions<Item, Result>) {
    if (options.maxBatch < 1 || options.maxInFlight < 1)
      throw new RangeError('maxBatch and maxInFlight must be at least 1');
    this.#options = options;
  }

  /** Resolves with the item's result once its batch is committed. */
  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
      if (this.#pending.length >= this.#options.maxBatch) this.#flushSoon();
      else if (this.#inFlight === 0) this.#flushWhenSpaced();
      else this.#timer ??= setTimeout(() => this.#flush(), Math.max(this.#options.waitMs, this.#spacingLeft()));
    });
  }

  // How long until the next batch may start under spacingMs (0: now).
  #spacingLeft(): number {
    const spacing = this.#options.spacingMs ?? 0;
    return spacing <= 0 ? 0 : Math.max(0, this.#lastStart + spacing - performance.now());
  }

  #flushWhenSpaced(): void {
    const left = this.#spacingLeft();
    if (left <= 0) this.#flushSoon();
    else this.#timer ??= setTimeout(() => this.#flush(), left);
  }

  /** Calls waiting for a batch, and batches being written (tests, metrics). */
  get state(): { readonly waiting: number; readonly writing: number } {
    return { waiting: this.#pending.length, writing: this.#inFlight };
  }

  // After the I/O callbacks of this turn, so that calls that arrived together go together.
  #flushSoon(): void {
    this.#immediate ??= setImmediate(() => this.#flush());
  }

  #flush(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    if (this.#immediate !== null) clearImmediate(this.#immediate);
    this.#timer = null;
    this.#immediate = null;
    while (this.#pending.length > 0 && this.#inFlight < this.#options.maxInFlight) {
      this.#lastStart = performance.now();
      void this.#write(this.#pending.splice(0, this.#options.maxBatch));
    }
    // Every slot busy: the rest goes when one frees (see #write).
  }

  async #write(batch: Pending<Item, Result>[]): Promise<void> {
    this.#inFlight++;
    try {
      const results = await this.#options.write(batch.map((p) => p.item));
      batch.forEach((p, i) => p.resolve(results[i]));
    } catch (error) {
      for (const p of batch) p.reject(error);
    } finally {
      this.#inFlight--;
      // A batch done: whoever waits goes now rather than at the end of its
      // wait (with spacingMs, once the spacing allows, unless a batch is full).
      if (this.#pending.length >= this.#options.maxBatch) this.#flushSoon();
      else if (this.#pending.length > 0) this.#flushWhenSpaced();
    }
  }
}
