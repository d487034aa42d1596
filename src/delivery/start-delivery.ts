// Wires a worker from the configuration, for the server process and for
// `npm run worker` alike.
import type { Logger } from '../log';
import type { DeliveryConfig } from './config';
import type { DeliveryStore } from './delivery-store';
import { startHeartbeat, type HeartbeatStore } from './heartbeat';
import { LogDeliveryObserver, startDeliveryReport } from './log-observer';
import type { PruningSchedule } from '../shared/pruning-schedule';
import { startOutboxPruning, type PruningStore } from './outbox-retention';
import type { DeliveryAttempt, DeliveryObserver } from './observer';
import { createPushProvider, createSmsProvider } from './provider-registry';
import { startWakeUp, type WakeUpSource } from './outbox-wake-up';
import { DeliveryWorker } from './worker';
import type { Tracer } from '../trace';

const REPORT_INTERVAL_MS = 60_000;

/** How long a stop waits for sends under way; the rest is retried after its lease. */
export const DELIVERY_STOP_MS = 5000;

export interface RunningDelivery {
  readonly worker: DeliveryWorker;
  /** Stops claiming, waits up to `timeoutMs` for sends under way, stops the report. */
  stop(timeoutMs: number): Promise<void>;
}

export interface StartDeliveryOptions {
  /** Also told of every attempt (the metrics of the operator surface). */
  readonly observer?: DeliveryObserver;
  readonly now?: () => Date;
  readonly random?: () => number;
  /** When the outbox is pruned (tests); the first pass a minute after start, then hourly. */
  readonly pruning?: PruningSchedule;
  /** A span for each send (docs/operating.md#traces); absent or null: off. */
  readonly tracer?: Tracer | null;
}

export function startDelivery(
  config: DeliveryConfig,
  store: DeliveryStore & PruningStore & Partial<WakeUpSource> & Partial<HeartbeatStore>,
  logger: Logger,
  options: StartDeliveryOptions = {},
): RunningDelivery {
  const now = options.now ?? (() => new Date());
  const log = new LogDeliveryObserver(logger);
  const extra = options.observer;
  const observer: DeliveryObserver =
    extra === undefined
      ? log
      : {
          attempted(attempt: DeliveryAttempt) {
            log.attempted(attempt);
            extra.attempted(attempt);
          },
          concurrency: extra.concurrency?.bind(extra),
        };
  const worker = new DeliveryWorker({
    store,
    push: createPushProvider(config.push, config.timeoutMs, logger),
    sms: createSmsProvider(config.sms, config.timeoutMs, logger),
    observer,
    logger,
    policy: config.retry,
    authCodeMaxAgeMs: config.authCodeMaxAgeSeconds * 1000,
    smsTemplate: config.smsTemplate,
    now,
    random: options.random ?? Math.random,
    tracer: options.tracer ?? null,
    concurrency: config.concurrency,
    concurrencyFloor: config.concurrencyFloor,
    leaseSeconds: config.leaseSeconds,
    pollMs: config.pollMs,
  });
  worker.start();
  const wakeUp =
    store.listenForOutbox === undefined
      ? null
      : startWakeUp(store as WakeUpSource, worker, {
          pollMs: config.pollMs,
          safetyPollMs: config.safetyPollMs,
          logger,
          random: options.random,
        });
  const stopReport = startDeliveryReport(store, log, logger, REPORT_INTERVAL_MS, now);
  const stopHeartbeat =
    store.workerHeartbeat === undefined || store.workerStopped === undefined
      ? async () => {}
      : startHeartbeat(store as HeartbeatStore, () => worker.health().running, logger, now);
  const days = config.outboxRetentionDays;
  const stopPruning = days === null ? async () => {} : startOutboxPruning(store, days, logger, now, options.pruning);
  logger.info(
    {
      push: config.push.provider,
      sms: config.sms.provider,
      concurrency: config.concurrency,
      outboxRetentionDays: days ?? 'off',
    },
    'delivery worker started',
  );
  return {
    worker,
    async stop(timeoutMs) {
      stopReport();
      await Promise.all([stopPruning(), worker.stop(timeoutMs), wakeUp?.stop()]);
      await stopHeartbeat();
    },
  };
}
