// When to try a failed message again, and when to give up. Firebase asks for
// exponential backoff with a random extra per message, at least a minute
// after QUOTA_EXCEEDED, and for Retry-After to be honoured; every retryable
// failure of every provider is treated the same way.
import type { DeliveryCompletion } from '../store';
import type { SendResult } from './provider';

export interface RetryPolicy {
  /** Attempts before a message is dead (the first send counts). */
  readonly maxAttempts: number;
  /** Wait after the first failure; doubles with each attempt. */
  readonly baseDelayMs: number;
  /** Longest wait between attempts (before Retry-After). */
  readonly maxDelayMs: number;
}

// Firebase: "exponential backoff with a minimum initial delay of 1 minute" after a 429.
export const RATE_LIMITED_BASE_DELAY_MS = 60_000;

/**
 * The wait before attempt `attempts + 1`: base·2^(attempts−1), plus a random
 * extra of up to as much again (so that messages failing together do not
 * return together), capped at maxDelayMs; never shorter than Retry-After.
 * `random` is in [0, 1).
 */
export function retryDelayMs(
  failure: { readonly rateLimited: boolean; readonly retryAfterMs: number | null },
  attempts: number,
  policy: RetryPolicy,
  random: () => number,
): number {
  const base = failure.rateLimited ? Math.max(policy.baseDelayMs, RATE_LIMITED_BASE_DELAY_MS) : policy.baseDelayMs;
  const exponential = Math.min(policy.maxDelayMs, base * 2 ** Math.max(0, attempts - 1));
  const jittered = Math.min(policy.maxDelayMs, Math.round(exponential * (1 + random())));
  return Math.max(jittered, failure.retryAfterMs ?? 0);
}

/**
 * How the outbox records the result of attempt number `attempts`. A
 * `deadline` (an auth code's expiry) turns a retry that would come too late
 * into a dead message. An uncertain failure of a provider that cannot drop a
 * repeat (`retriesUncertain` false) is final.
 */
export function completionFor(
  result: SendResult,
  attempts: number,
  policy: RetryPolicy,
  now: Date,
  random: () => number,
  deadline: Date | null = null,
  retriesUncertain = true,
): DeliveryCompletion {
  if (result.ok) return { status: 'sent', providerMessageId: result.providerMessageId };
  const error = `${result.code}: ${result.message}`;
  // Sending again could deliver it twice (a second SMS): recorded for a person to judge instead.
  if (result.uncertain && !retriesUncertain)
    return { status: 'uncertain', error: `${error} (it may have been accepted; not sent again)` };
  if (!result.retryable) return { status: 'dead', error };
  if (attempts >= policy.maxAttempts)
    return { status: 'dead', error: `gave up after ${attempts} attempts; last: ${error}` };
  const retryAt = new Date(now.getTime() + retryDelayMs(result, attempts, policy, random));
  if (deadline !== null && retryAt >= deadline)
    return { status: 'dead', error: `${error}; a retry would come after the code expires` };
  return { status: 'failed', retryAt: retryAt.toISOString(), error };
}
