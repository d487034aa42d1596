// What the worker asks of a push or SMS provider, and what it gets back.
// Failures are values, classified by the provider that understands them, so
// that the worker decides retries from the class alone.
import type { ResolvedOptions } from '../domain';
import type { DevicePlatform } from '../store';

export interface SendSuccess {
  readonly ok: true;
  /** The provider's name for the accepted message (FCM's `projects/…/messages/…`, Twilio's `SM…`), when it gives one. */
  readonly providerMessageId: string | null;
}

export interface SendFailure {
  readonly ok: false;
  /** Short and from a small set, for metrics and the store: `UNAVAILABLE`, `http_503`, `timeout`, … */
  readonly code: string;
  /** What happened, for a person reading the outbox or the log. Never a secret. */
  readonly message: string;
  /** Worth trying again later (timeouts, connection errors, 429, 5xx, FCM UNAVAILABLE/INTERNAL/QUOTA_EXCEEDED). */
  readonly retryable: boolean;
  /** The provider asked us to slow down (HTTP 429, QUOTA_EXCEEDED): a longer backoff applies. */
  readonly rateLimited: boolean;
  /** From the answer's Retry-After header. */
  readonly retryAfterMs: number | null;
  /** The push token is no longer valid and should be removed from its device. */
  readonly tokenInvalid: boolean;
  /**
   * The request reached the provider whole and no answer came back (a timeout,
   * a connection reset after sending): it may have been accepted. Sent again
   * only by a provider that honours an idempotency key (`retriesUncertain`).
   */
  readonly uncertain: boolean;
}

export type SendResult = SendSuccess | SendFailure;

export interface PushMessage {
  /** The outbox id; travels in the data as `notificationId` so that an app can drop a duplicate. */
  readonly id: string;
  readonly token: string;
  readonly platform: DevicePlatform | null;
  readonly title: string;
  readonly body: string;
  readonly data: Readonly<Record<string, string>>;
  /** Per-platform options (src/domain/message-options.ts); null or left out: none of ours, the provider's defaults. */
  readonly options?: ResolvedOptions | null;
  /** The FCM project of the student's school (src/delivery/school-projects.ts); left out: the default. */
  readonly project?: string;
}

export interface SmsMessage {
  readonly id: string;
  /** E.164. */
  readonly phone: string;
  /** Holds the code: never log it. */
  readonly text: string;
}

export interface PushProvider {
  /** Its descriptor's name, the value of PUSH_PROVIDER (src/delivery/provider-registry.ts lists them). */
  readonly name: string;
  /** An uncertain send may be sent again: the provider drops a repeat (idempotency key) or a repeat is harmless. */
  readonly retriesUncertain: boolean;
  /** Sends through the FCM project of the message's school: the worker looks each school's up before sending. */
  readonly byProject?: boolean;
  send(message: PushMessage): Promise<SendResult>;
}

export interface SmsProvider {
  /** Its descriptor's name, the value of SMS_PROVIDER (src/delivery/provider-registry.ts lists them). */
  readonly name: string;
  /** An uncertain send may be sent again: the provider drops a repeat by its idempotency key (docs/delivery.md#sent-once). */
  readonly retriesUncertain: boolean;
  send(message: SmsMessage): Promise<SendResult>;
}

export function sent(providerMessageId: string | null = null): SendSuccess {
  return { ok: true, providerMessageId };
}

/** A failure with the defaults of its kind filled in. */
export function failure(
  code: string,
  message: string,
  kind: Partial<Pick<SendFailure, 'retryable' | 'rateLimited' | 'retryAfterMs' | 'tokenInvalid' | 'uncertain'>> = {},
): SendFailure {
  return {
    ok: false,
    code,
    message,
    retryable: kind.retryable ?? false,
    rateLimited: kind.rateLimited ?? false,
    retryAfterMs: kind.retryAfterMs ?? null,
    tokenInvalid: kind.tokenInvalid ?? false,
    uncertain: kind.uncertain ?? false,
  };
}
