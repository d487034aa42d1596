// How delivery reports what it does, so that metrics (or, until they exist,
// the log) can count it without the worker knowing about either.

export type DeliveryChannel = 'push' | 'sms';

/** `sent`: the provider accepted it; `retry`: a retryable failure, tried again later; `dead`: gave up (permanent or out of attempts). */
export type DeliveryOutcome = 'sent' | 'retry' | 'dead';

export interface DeliveryAttempt {
  readonly channel: DeliveryChannel;
  /** `fcm`, `webhook`, `log`, `http`, `twilio`. */
  readonly provider: string;
  readonly outcome: DeliveryOutcome;
  /** The provider's error code (`UNAVAILABLE`, `http_503`, `timeout`, …); null when sent. */
  readonly errorCode: string | null;
  readonly durationMs: number;
}

export interface DeliveryObserver {
  attempted(attempt: DeliveryAttempt): void;
}
