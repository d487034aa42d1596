// How delivery reports what it does, so that metrics (or, until they exist,
// the log) can count it without the worker knowing about either.
import type { OutboxChannel } from '../shared/outbox-channel';

export type DeliveryChannel = OutboxChannel;

/**
 * `sent`: the provider accepted it; `retry`: a retryable failure, tried again later; `dead`: gave up (permanent or out of attempts);
 * `uncertain`: the provider may have accepted it and cannot drop a repeat, so it is not sent again.
 */
export type DeliveryOutcome = 'sent' | 'retry' | 'dead' | 'uncertain';

export interface DeliveryAttempt {
  readonly channel: DeliveryChannel;
  /** `fcm`, `webhook`, `log`, `http`, `twilio`. */
  readonly provider: string;
  readonly outcome: DeliveryOutcome;
  /** The provider's error code (`UNAVAILABLE`, `http_503`, `timeout`, …); null when sent. */
  readonly errorCode: string | null;
  readonly durationMs: number;
  /** The FCM project it went through, when the push provider sends by project (FCM_PROJECTS); left out otherwise. */
  readonly project?: string;
}

/** Sends in flight to one provider and the adaptive limit they follow (src/delivery/concurrency). */
export interface DeliveryConcurrency {
  readonly channel: DeliveryChannel;
  readonly provider: string;
  readonly inFlight: number;
  readonly limit: number;
}

export interface DeliveryObserver {
  attempted(attempt: DeliveryAttempt): void;
  /** Told whenever a send starts or ends. */
  concurrency?(state: DeliveryConcurrency): void;
}
