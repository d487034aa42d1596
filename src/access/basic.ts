// HTTP Basic credentials checked against the policy's bcrypt hashes
// (docs/security.md#speed, #failed-logins).
//
// bcrypt is slow on purpose (about 0.1 s of CPU at cost 10), far more than a
// whole call costs, so it runs on worker threads (bcrypt-pool.ts), and an
// answer is remembered for a short while, keyed by a salted hash of the
// header: a client sending the same header call after call pays bcrypt once
// a minute, and a wrong header sent again is answered from memory too. The
// cache holds salted SHA-256 digests, never a password, keeps at most
// MAX_CACHED headers, and a new policy (SIGHUP) starts empty. Before a new
// header is checked, the failed-login throttle (login-throttle.ts) and the
// caller's `limit` budget may refuse it without bcrypt.
import { hash, randomBytes } from 'node:crypto';
import type { BcryptPool } from './bcrypt-pool';
import { GenerationMap } from './generations';
import type { LoginAttempt, LoginThrottle } from './login-throttle';

/** How long a verified (or refused) header is remembered. */
export const CREDENTIAL_CACHE_MS = 60_000;
/** Most headers remembered (two generations of half as many). */
export const MAX_CACHED = 10_000;

// Compared against when the user is unknown, so that an unknown name costs
// the same time as a wrong password and does not reveal which names exist.
const UNKNOWN_USER_HASH = '$2b$10$.1IaZorsiUkc0Tg8.Liz4e6o8r8gAbJaDcirJJKP5IJaNzmG0sZ92';

export interface BasicCredentials {
  readonly user: string;
  readonly password: string;
}

/**
 * Reads `Authorization: Basic base64(user:password)` (UTF-8, RFC 7617); null
 * when absent or malformed. The base64 must be RFC 4648's, padded, and
 * nothing else: no URL-safe alphabet, nothing after the padding, no bits
 * left over (each string decodes from exactly one encoding).
 */
export function readBasicCredentials(header: string | undefined): BasicCredentials | null {
  if (header === undefined) return null;
  const match = /^basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i.exec(header);
  if (match === null) return null;
  const bytes = Buffer.from(match[1], 'base64');
  if (bytes.toString('base64') !== match[1]) return null;
  const decoded = bytes.toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Why credentials were not accepted, each its own 401 text (access-control.ts). */
export type BasicRefusal =
  /** No Authorization header, or another scheme. */
  | { readonly user: null; readonly why: 'missing' }
  /** `Basic` with something that is not base64 of `user:password`. */
  | { readonly user: null; readonly why: 'malformed' }
  /** Checked: no such user, or not its password (the answer does not say which). */
  | { readonly user: null; readonly why: 'wrong' }
  /** Not checked: too many failed logins from this address or for this name. */
  | { readonly user: null; readonly why: 'throttled'; readonly retryAfterSeconds: number }
  /** Not checked: every bcrypt thread's queue is full. */
  | { readonly user: null; readonly why: 'busy'; readonly retryAfterSeconds: number }
  /** Not checked: the caller's `limit` budget is spent (its failed logins count). */
  | { readonly user: null; readonly why: 'limit'; readonly retryAfterSeconds: number };

export type BasicOutcome = { readonly user: string } | BasicRefusal;

/**
 * Checks `header` from `address`; synchronous when the answer is remembered
 * or no check is made. `spent`, when given, is asked before bcrypt runs: the
 * seconds until the caller's budget allows another try, or null.
 */
export type BasicVerifier = (
  header: string | undefined,
  address: string | null,
  spent?: () => number | null,
) => BasicOutcome | Promise<BasicOutcome>;

export interface BasicVerifierOptions {
  readonly pool: BcryptPool;
  readonly throttle: LoginThrottle;
  readonly now?: () => number;
}

const MISSING: BasicOutcome = { user: null, why: 'missing' };
const MALFORMED: BasicOutcome = { user: null, why: 'malformed' };
const WRONG: BasicOutcome = { user: null, why: 'wrong' };
const BUSY: BasicOutcome = { user: null, why: 'busy', retryAfterSeconds: 1 };

export function createBasicVerifier(users: ReadonlyMap<string, string>, options: BasicVerifierOptions): BasicVerifier {
  const { pool, throttle } = options;
  const now = options.now ?? Date.now;
  // A random salt per cache: a digest is worth nothing outside this process's memory.
  const salt = randomBytes(32).toString('base64');
  const cache = new GenerationMap<{ outcome: BasicOutcome; until: number }>(MAX_CACHED / 2);
  const pending = new Map<string, Promise<BasicOutcome>>();

  const verify = async (
    digest: string,
    credentials: BasicCredentials,
    attempt: LoginAttempt,
    check: Promise<boolean>,
  ): Promise<BasicOutcome> => {
    let ok: boolean;
    try {
      ok = await check;
    } catch {
      // The thread died under the check: not an answer, nothing remembered.
      attempt.cancelled();
      return BUSY;
    }
    const at = now();
    const outcome: BasicOutcome = ok && users.has(credentials.user) ? { user: credentials.user } : WRONG;
    if (outcome.user === null) attempt.failed();
    else attempt.succeeded(at);
    cache.set(digest, { outcome, until: at + CREDENTIAL_CACHE_MS });
    return outcome;
  };

  return (header, address, spent) => {
    if (header === undefined || !/^basic(?:[ \t]|$)/i.test(header)) return MISSING;
    if (users.size === 0) return WRONG;
    // One-shot crypto.hash: a quarter of an HMAC's cost, measured, on every call.
    const digest = hash('sha256', salt + header, 'base64');
    const cached = cache.get(digest);
    if (cached !== undefined && cached.until > now()) return cached.outcome;
    const credentials = readBasicCredentials(header);
    if (credentials === null) return MALFORMED;
    // Concurrent calls with the same header share one bcrypt run.
    const running = pending.get(digest);
    if (running !== undefined) return running;
    // The attempt is counted before the check is awaited, so that concurrent
    // wrong passwords cannot all pass a count none of them has raised yet.
    const attempt = throttle.reserve(address, credentials.user, now());
    if ('retryAfter' in attempt) return { user: null, why: 'throttled', retryAfterSeconds: attempt.retryAfter };
    const budget = spent?.() ?? null;
    if (budget !== null) {
      attempt.cancelled();
      return { user: null, why: 'limit', retryAfterSeconds: budget };
    }
    const check = pool.compare(credentials.password, users.get(credentials.user) ?? UNKNOWN_USER_HASH);
    if (check === null) {
      attempt.cancelled();
      return BUSY;
    }
    const next = verify(digest, credentials, attempt, check).finally(() => pending.delete(digest));
    pending.set(digest, next);
    return next;
  };
}
