// The words of an AuthCode refused by an abuse limit: which limit, and when
// the caller may try again.
import type { AuthCodeAdmission, AuthCodeLimitScope } from '../store';
import { ClientError } from './errors';

type Refusal = Extract<AuthCodeAdmission, { admitted: false }>;

/** Which limit was reached, by its scope: the refusal's first words. */
const LIMIT_REACHED: Record<AuthCodeLimitScope, string> = {
  phone: 'Too many login codes for this phone number',
  caller: 'Too many login codes requested from this address',
  global: 'The service has reached its budget of login codes',
};

export function refusalError(refusal: Refusal): ClientError {
  const { scope, max, windowSeconds } = refusal.limit;
  const seconds = refusal.retryAfterSeconds;
  return new ClientError(
    `auth_code_limit_${scope}`,
    `${LIMIT_REACHED[scope]}: at most ${max} per ${duration(windowSeconds)}. Try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'} (after ${refusal.retryAt}).`,
    { retryAfterSeconds: seconds },
  );
}

function duration(seconds: number): string {
  for (const [unit, size] of [
    ['day', 86400],
    ['hour', 3600],
    ['minute', 60],
  ] as const) {
    if (seconds % size === 0) return seconds === size ? unit : `${seconds / size} ${unit}s`;
  }
  return `${seconds} seconds`;
}
