// The schedule of a retention (the outbox's in src/delivery/outbox-retention.ts,
// the audit trail's in src/access/audit-retention.ts).

/** The first pass waits a little after start, then one an hour. */
export const PRUNE_FIRST_DELAY_MS = 60_000;
export const PRUNE_INTERVAL_MS = 3_600_000;

export interface PruningSchedule {
  readonly firstDelayMs: number;
  readonly intervalMs: number;
}

/**
 * `pass` runs after the first delay, then once per interval, never two at
 * once, until the returned function is called; that aborts the pass under
 * way and resolves once it has ended. A failed pass goes to `failed`, and the
 * next one tries again.
 */
export function startPruningSchedule(
  pass: (signal: AbortSignal) => Promise<unknown>,
  failed: (error: unknown) => void,
  schedule: PruningSchedule,
): () => Promise<void> {
  const stopping = new AbortController();
  let running: Promise<void> | null = null;
  const run = () => {
    if (running !== null || stopping.signal.aborted) return;
    running = Promise.resolve()
      .then(() => pass(stopping.signal))
      .then(() => undefined, failed)
      .finally(() => {
        running = null;
      });
  };
  let interval: NodeJS.Timeout | undefined;
  const first = setTimeout(() => {
    run();
    interval = setInterval(run, schedule.intervalMs);
    interval.unref();
  }, schedule.firstDelayMs);
  first.unref();
  return async () => {
    stopping.abort();
    clearTimeout(first);
    clearInterval(interval);
    await running;
  };
}
