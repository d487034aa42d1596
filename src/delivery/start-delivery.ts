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
import { EventWorker, type EventObserver, type EventStore } from './events/event-worker';
import type { Tracer } from '../trace';

const REPORT_INTERVAL_MS = 60_000;

/** How long a stop waits for sends under way; the rest is retried after its lease. */
export const DELIVERY_STOP_MS = 5000;

export interface RunningDelivery {
  readonly worker: DeliveryWorker;
  /** The worker of the delivery events to the schools' systems; null when the store has no event outbox. */
  readonly events: EventWorker | null;
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
  /** Told of every delivery event's attempt (the metrics). */
  readonly eventObserver?: EventObserver;
}

export function startDelivery(
  config: DeliveryConfig,
  store: DeliveryStore & PruningStore & Partial<WakeUpSource> & Partial<HeartbeatStore> & Partial<EventStore>,
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
  let pushesBusy = (): boolean => false;
  // Its own loop and slots: a slow or failing school receiver never holds up a push or a login code.
  const events =
    store.claimEvents === undefined || store.completeEvents === undefined
      ? null
      : new EventWorker({
          store: store as EventStore,
          logger,
          now,
          random: options.random ?? Math.random,
          concurrency: config.events.concurrency,
          perSchool: config.events.perSchool,
          leaseSeconds: config.leaseSeconds,
          pollMs: config.pollMs,
          timeoutMs: config.timeoutMs,
          baseDelayMs: config.retry.baseDelayMs,
          maxDelayMs: config.retry.maxDelayMs,
          health: { failingAfterMs: config.events.failingAfterMs, disableAfterMs: config.events.disableAfterMs },
          allowPrivate: config.events.allowPrivate,
          observer: options.eventObserver,
          // Events yield to a busy push and SMS worker (docs/delivery.md#delivery-events), made below.
          pushesBusy: () => pushesBusy(),
        });
  events?.start();
  // A result the worker writes may queue events (docs/delivery.md#delivery-events): the event worker
  // looks at once rather than at its next poll, so an event leaves moments after its outcome.
  const completing =
    events === null
      ? store
      : Object.assign(Object.create(store) as typeof store, {
          async completeDeliveries(entries: Parameters<typeof store.completeDeliveries>[0]) {
            const taken = await store.completeDeliveries(entries);
            events.notify();
            return taken;
          },
        });
  const worker = new DeliveryWorker({
    store: completing,
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
  pushesBusy = () => worker.busy();
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
    events,
    async stop(timeoutMs) {
      stopReport();
      await Promise.all([stopPruning(), worker.stop(timeoutMs), events?.stop(timeoutMs), wakeUp?.stop()]);
      await stopHeartbeat();
    },
  };
}
