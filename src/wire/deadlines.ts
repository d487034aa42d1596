// Every operation call's time limit (OPERATION_TIMEOUT_MS) kept on one coarse
// timer instead of a setTimeout per call. A timer per call cost each call an
// insertion into Node's timer list, its removal, a Promise.race and a finally;
// here a call costs a Set entry, and one interval, running only while calls are
// pending, fails those past their deadline (docs/benchmark.md#request-path).
// The price is precision: a call is failed within two ticks after its limit
// (a tenth of the limit at most, 200 ms at most).
// The clock is the count of ticks, so a call reads no time either.

/** How often the pending calls are checked: a twentieth of the limit, between 1 and 100 ms. */
export function deadlineTickMs(timeoutMs: number): number {
  return Math.min(100, Math.max(1, Math.floor(timeoutMs / 20)));
}

export interface Deadlines {
  /** `work`'s outcome, or `expired()`'s error once `work` has run past the limit. */
  within<T>(work: Promise<T>): Promise<T>;
  /** Calls still pending (for tests). */
  readonly pending: number;
}

interface Pending {
  readonly deadline: number;
  readonly fail: (error: unknown) => void;
}

export function createDeadlines(timeoutMs: number, expired: () => Error): Deadlines {
  const tickMs = deadlineTickMs(timeoutMs);
  // A call started just before a tick sees that tick at once: one more tick than the limit holds keeps it at least its limit.
  const ticksPerLimit = Math.ceil(timeoutMs / tickMs) + 1;
  // One limit for all, so the Set's insertion order is deadline order: a check stops at the first call still in time.
  const pending = new Set<Pending>();
  let timer: NodeJS.Timeout | null = null;
  let ticks = 0;

  const check = () => {
    ticks++;
    for (const entry of pending) {
      if (entry.deadline > ticks) break;
      pending.delete(entry);
      entry.fail(expired());
    }
    if (pending.size === 0 && timer !== null) {
      clearInterval(timer);
      timer = null;
    }
  };

  return {
    within<T>(work: Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const entry: Pending = { deadline: ticks + ticksPerLimit, fail: reject };
        pending.add(entry);
        // Kept referenced, as a timer per call was: a pending call keeps the process up to its limit.
        timer ??= setInterval(check, tickMs);
        work.then(
          (value) => {
            pending.delete(entry);
            resolve(value);
          },
          (error: unknown) => {
            pending.delete(entry);
            entry.fail(error);
          },
        );
      });
    },
    get pending() {
      return pending.size;
    },
  };
}
