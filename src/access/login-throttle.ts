// Failed Basic logins, counted per address and per user name, so that a
// password-guessing caller is answered 401 with Retry-After without running
// bcrypt (docs/security.md#failed-logins).
//
// - Per address (an IPv6 caller by its /64, caller-key.ts): at most
//   `perAddress` failed logins a window.
// - Per user name: at most `perUser` failed logins a window, counted from
//   addresses that have not logged in as that user lately. An address that
//   did (within `trustMs`) is never stopped by the per-user count, so a
//   flood against a name cannot lock that user out of the places it already
//   logs in from; a new address of that user waits for the window to end.
//   Every name is counted, existing or not, so the answer says nothing of
//   which names exist.
//
// Windows are fixed (aligned to multiples of their length). Memory is
// bounded: each table keeps at most `maxKeys` keys in two generations
// (generations.ts); a key forgotten starts again from zero.
import { callerKey } from './caller-key';
import { GenerationMap } from './generations';

export const DEFAULT_FAILURES_PER_ADDRESS = 10;
export const DEFAULT_FAILURES_PER_USER = 20;
export const DEFAULT_FAILURE_WINDOW_MS = 60_000;
/** How long a successful login exempts its address from its user's failure count. */
export const DEFAULT_TRUST_MS = 24 * 3_600_000;
export const DEFAULT_MAX_THROTTLE_KEYS = 20_000;

export interface LoginThrottleOptions {
  readonly perAddress?: number;
  readonly perUser?: number;
  readonly windowMs?: number;
  readonly trustMs?: number;
  /** Most keys kept per table (addresses, user names, trusted address and user pairs). */
  readonly maxKeys?: number;
}

/** An attempt taken before its password is checked (LoginThrottle.reserve), counted as failed until it is known. */
export interface LoginAttempt {
  /** The password was wrong: the attempt stays counted. */
  failed(): void;
  /** The password was right: the attempt is given back, and the address trusted for this user. */
  succeeded(nowMs: number): void;
  /** No password was checked after all (no thread free for it): the attempt is given back. */
  cancelled(): void;
}

export interface LoginThrottle {
  /**
   * Takes an attempt for this address and user name, counted as failed at
   * once: seconds to wait when they failed too often lately. Taken before
   * the (asynchronous) password check, so that a burst of concurrent
   * attempts cannot all pass a count that each read before any was added.
   */
  reserve(address: string | null, user: string, nowMs: number): LoginAttempt | { readonly retryAfter: number };
  /** Seconds to wait when this address or this user name failed too often lately; null to go on and check. */
  refused(address: string | null, user: string, nowMs: number): number | null;
  failed(address: string | null, user: string, nowMs: number): void;
  succeeded(address: string | null, user: string, nowMs: number): void;
  /** Keys held, all tables together. */
  readonly size: number;
}

interface Count {
  windowStart: number;
  count: number;
}

export function createLoginThrottle(options: LoginThrottleOptions = {}): LoginThrottle {
  const perAddress = options.perAddress ?? DEFAULT_FAILURES_PER_ADDRESS;
  const perUser = options.perUser ?? DEFAULT_FAILURES_PER_USER;
  const windowMs = options.windowMs ?? DEFAULT_FAILURE_WINDOW_MS;
  const trustMs = options.trustMs ?? DEFAULT_TRUST_MS;
  const generation = Math.ceil((options.maxKeys ?? DEFAULT_MAX_THROTTLE_KEYS) / 2);
  const addresses = new GenerationMap<Count>(generation);
  const users = new GenerationMap<Count>(generation);
  // `address|user` -> until when that address is exempt from the user's count.
  const trusted = new GenerationMap<number>(generation);

  const current = (table: GenerationMap<Count>, key: string, nowMs: number): number => {
    const entry = table.get(key);
    return entry === undefined || entry.windowStart + windowMs <= nowMs ? 0 : entry.count;
  };
  /** Counts one failure; returns the window it went into, so that it can be given back. */
  const add = (table: GenerationMap<Count>, key: string, nowMs: number): number => {
    const windowStart = nowMs - (nowMs % windowMs);
    const entry = table.get(key);
    if (entry === undefined) table.set(key, { windowStart, count: 1 });
    else if (entry.windowStart < windowStart) Object.assign(entry, { windowStart, count: 1 });
    else entry.count++;
    return windowStart;
  };
  /** Takes back a failure counted in `windowStart`; nothing once that window is over (its count is gone anyway). */
  const remove = (table: GenerationMap<Count>, key: string, windowStart: number) => {
    const entry = table.get(key);
    if (entry !== undefined && entry.windowStart === windowStart && entry.count > 0) entry.count--;
  };
  const isTrusted = (address: string, user: string, nowMs: number) =>
    (trusted.get(`${address}|${user}`) ?? -Infinity) > nowMs;
  const retryAfter = (nowMs: number) => Math.max(1, Math.ceil((nowMs - (nowMs % windowMs) + windowMs - nowMs) / 1000));

  const refused = (address: string | null, user: string, nowMs: number): number | null => {
    const key = callerKey(address);
    if (current(addresses, key, nowMs) >= perAddress) return retryAfter(nowMs);
    if (!isTrusted(key, user, nowMs) && current(users, user, nowMs) >= perUser) return retryAfter(nowMs);
    return null;
  };

  return {
    get size() {
      return addresses.size + users.size + trusted.size;
    },
    reserve(address, user, nowMs) {
      const wait = refused(address, user, nowMs);
      if (wait !== null) return { retryAfter: wait };
      const key = callerKey(address);
      const addressWindow = add(addresses, key, nowMs);
      const userWindow = isTrusted(key, user, nowMs) ? null : add(users, user, nowMs);
      let settled = false;
      const giveBack = () => {
        if (settled) return false;
        settled = true;
        remove(addresses, key, addressWindow);
        if (userWindow !== null) remove(users, user, userWindow);
        return true;
      };
      return {
        failed: () => void (settled = true),
        succeeded: (at) => {
          if (giveBack()) trusted.set(`${key}|${user}`, at + trustMs);
        },
        cancelled: () => void giveBack(),
      };
    },
    refused,
    failed(address, user, nowMs) {
      const key = callerKey(address);
      add(addresses, key, nowMs);
      if (!isTrusted(key, user, nowMs)) add(users, user, nowMs);
    },
    succeeded(address, user, nowMs) {
      trusted.set(`${callerKey(address)}|${user}`, nowMs + trustMs);
    },
  };
}
