// Wakes a worker when a message is queued anywhere, not only in its own
// process: on PostgreSQL each queueing transaction sends a NOTIFY on commit,
// and each worker process LISTENs on a dedicated connection. While that
// connection is up the worker polls only slowly (`safetyPollMs`), to catch
// what no notification announces: retries coming due, leases running out,
// a notification lost with a connection. While it is down the worker polls
// at its usual pace, and the connection is opened again with a growing wait.
import type { OutboxSubscription } from '../store';
import type { Logger } from '../log';

/** What the wake-up needs of the store (the opened store provides it; null: no LISTEN on this database). */
export interface WakeUpSource {
  listenForOutbox(onNotification: (channel: string) => void): Promise<OutboxSubscription> | null;
}

/** What it needs of the worker. */
export interface WakeUpTarget {
  /** `channel`: the outbox channel the NOTIFY named (src/delivery/worker.ts looks at login codes at once for 'sms'). */
  notify(channel?: string): void;
  pollEvery(ms: number): void;
}

export interface WakeUpOptions {
  readonly pollMs: number;
  readonly safetyPollMs: number;
  readonly logger: Logger;
  /** First wait before opening the connection again; doubles up to maxBackoffMs. */
  readonly backoffMs?: number;
  readonly maxBackoffMs?: number;
  readonly random?: () => number;
}

export interface WakeUp {
  /** Whether the LISTEN connection is up now. */
  readonly listening: boolean;
  stop(): Promise<void>;
}

const BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 30_000;

/** Starts listening for `target`; on a database without LISTEN it does nothing. */
export function startWakeUp(source: WakeUpSource, target: WakeUpTarget, options: WakeUpOptions): WakeUp {
  const random = options.random ?? Math.random;
  const base = options.backoffMs ?? BACKOFF_MS;
  const max = options.maxBackoffMs ?? MAX_BACKOFF_MS;
  let stopped = false;
  let listening = false;
  let subscription: OutboxSubscription | null = null;
  let wakeSleep: (() => void) | null = null;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeSleep = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const run = async (): Promise<void> => {
    let failures = 0;
    while (!stopped) {
      let opening: Promise<OutboxSubscription> | null;
      try {
        opening = source.listenForOutbox((channel) => target.notify(channel));
        if (opening === null) return;
        subscription = await opening;
      } catch (error) {
        failures++;
        const waitMs = Math.min(max, base * 2 ** (failures - 1)) * (0.5 + random() / 2);
        options.logger.warn(
          { err: error, failures, retryInMs: Math.round(waitMs) },
          'outbox LISTEN connection failed; polling meanwhile',
        );
        await sleep(waitMs);
        continue;
      }
      if (stopped) {
        await subscription.close();
        return;
      }
      if (failures > 0) options.logger.info({ failures }, 'outbox LISTEN connection restored');
      failures = 0;
      listening = true;
      target.pollEvery(options.safetyPollMs);
      // Whatever was queued while nobody listened is due now.
      target.notify();
      const error = await subscription.ended;
      listening = false;
      subscription = null;
      target.pollEvery(options.pollMs);
      if (stopped) return;
      failures++;
      options.logger.warn({ err: error }, 'outbox LISTEN connection lost; polling until it is back');
      await sleep(Math.min(max, base) * (0.5 + random() / 2));
    }
  };
  const running = run();

  return {
    get listening() {
      return listening;
    },
    async stop() {
      stopped = true;
      wakeSleep?.();
      await subscription?.close();
      await running;
    },
  };
}
