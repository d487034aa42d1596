// What keeps the seeding from overloading the legacy server
// (docs/migration.md#seed-from-the-legacy-service): at most `concurrency`
// calls in flight, and calls started no faster than `rate` a second (0: no
// pacing), retries included.

export interface CallGate {
  run<T>(call: () => Promise<T>): Promise<T>;
}

export function createCallGate(concurrency: number, rate: number): CallGate {
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  let nextStart = 0;
  const interval = rate > 0 ? 1000 / rate : 0;

  const acquire = async (): Promise<void> => {
    if (inFlight < concurrency) {
      inFlight++;
      return;
    }
    // The slot is handed over by release(), so inFlight stays counted.
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = (): void => {
    const next = waiting.shift();
    if (next === undefined) inFlight--;
    else next();
  };
  const pace = async (): Promise<void> => {
    if (interval === 0) return;
    const now = Date.now();
    const start = Math.max(now, nextStart);
    nextStart = start + interval;
    if (start > now) await new Promise((resolve) => setTimeout(resolve, start - now));
  };

  return {
    async run(call) {
      await acquire();
      try {
        await pace();
        return await call();
      } finally {
        release();
      }
    },
  };
}
