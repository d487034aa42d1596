// Until the metrics of the operator surface exist, delivery is counted in the
// log: every attempt at debug level, and a summary a minute with the queue.
import type { Logger } from '../log';
import type { DeliveryStore } from './delivery-store';
import type { DeliveryAttempt, DeliveryObserver } from './observer';

export class LogDeliveryObserver implements DeliveryObserver {
  readonly #logger: Logger;
  #counts = new Map<string, number>();

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  attempted(attempt: DeliveryAttempt): void {
    const key = `${attempt.channel} ${attempt.provider} ${attempt.outcome}${attempt.errorCode === null ? '' : ` ${attempt.errorCode}`}`;
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    this.#logger.debug({ delivery: attempt }, 'delivery attempt');
  }

  /** The counts since the last call, keyed `channel provider outcome [error]`. */
  takeCounts(): Record<string, number> {
    const counts = Object.fromEntries(this.#counts);
    this.#counts = new Map();
    return counts;
  }
}

/** Logs the attempt counts and the queue (depth, dead, oldest pending age) every `intervalMs`; returns a stop function. */
export function startDeliveryReport(
  store: DeliveryStore,
  observer: LogDeliveryObserver,
  logger: Logger,
  intervalMs: number,
  now: () => Date,
): () => void {
  const timer = setInterval(() => {
    store.outboxStats().then(
      (stats) => {
        const attempts = observer.takeCounts();
        const queue = stats.map((s) => ({
          channel: s.channel,
          pending: s.counts.queued + s.counts.failed + s.counts.sending,
          dead: s.counts.dead,
          uncertain: s.counts.uncertain,
          oldestPendingAgeSeconds:
            s.oldestPendingAt === null ? null : Math.round((now().getTime() - Date.parse(s.oldestPendingAt)) / 1000),
        }));
        if (Object.keys(attempts).length > 0 || queue.some((q) => q.pending > 0))
          logger.info({ attempts, queue }, 'delivery report');
      },
      (error: unknown) => logger.warn({ err: error }, 'delivery report: the outbox could not be read'),
    );
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
