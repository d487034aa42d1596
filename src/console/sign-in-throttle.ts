// Failed console sign-ins, counted in the store (docs/console.md#signing-in)
// so that every node behind a load balancer counts the same failures: the
// rules of the policy's Basic users (src/access/login-throttle.ts), per
// account name and per address (an IPv6 address by its /64), in fixed windows,
// with an address that signed in as an account lately exempt from that
// account's count. The counts live in src/store/sign-in-throttle.ts.
import { callerKey } from '../access/caller-key';
import type { ConsoleStore } from '../store';

/** How long a successful sign-in exempts its address from its account's failure count. */
const TRUST_MS = 24 * 3_600_000;
/** Attempts on a node between two prunes of the ended windows and trust. */
const PRUNE_EVERY = 100;

export interface SignInThrottleOptions {
  readonly perAccount: number;
  readonly perAddress: number;
  readonly windowMs: number;
}

/** An attempt taken before its password is checked, counted as failed until it is known. */
export interface SignInAttempt {
  /** The password was right: the attempt is given back, and the address trusted for this account. */
  succeeded(nowMs: number): Promise<void>;
  /** No password was checked after all (no thread free for it, the store failed): the attempt is given back. */
  cancelled(): Promise<void>;
}

export interface SignInThrottle {
  /**
   * Takes an attempt for this address and account name, counted as failed
   * at once; seconds to wait when they failed too often lately. The count is
   * raised and read in one statement, so that a burst of concurrent attempts,
   * on one node or several, gets no more password checks than the limit.
   */
  reserve(
    address: string | null,
    name: string,
    nowMs: number,
  ): Promise<SignInAttempt | { readonly retryAfter: number }>;
}

export function storeSignInThrottle(store: ConsoleStore, options: SignInThrottleOptions): SignInThrottle {
  const { perAccount, perAddress, windowMs } = options;
  let attempts = 0;
  return {
    async reserve(address, name, nowMs) {
      const start = nowMs - (nowMs % windowMs);
      const windowStart = new Date(start).toISOString();
      // Counts of windows gone by are deleted now and then, so that the tables hold what the last minute tried.
      if (attempts++ % PRUNE_EVERY === 0) await store.pruneSignInThrottle(windowStart);
      const retryAfter = Math.max(1, Math.ceil((start + windowMs - nowMs) / 1000));
      const caller = callerKey(address);
      const addressKey = `address:${caller}`;
      const accountKey = `account:${name}`;
      const trusted = await store.signInTrusted(`${caller}|${name}`);
      const counted: string[] = [];
      const giveBack = async () => {
        for (const key of counted.splice(0)) await store.giveBackSignInFailure(key, windowStart);
      };
      // Refused before counting when already at the limit: a flood does not raise the counts without end.
      const before = await store.readSignInFailures([addressKey, accountKey], windowStart);
      if ((before.get(addressKey) ?? 0) >= perAddress || (!trusted && (before.get(accountKey) ?? 0) >= perAccount))
        return { retryAfter };
      counted.push(addressKey);
      let over = (await store.countSignInFailure(addressKey, windowStart)) > perAddress;
      if (!over && !trusted) {
        counted.push(accountKey);
        over = (await store.countSignInFailure(accountKey, windowStart)) > perAccount;
      }
      if (over) {
        await giveBack();
        return { retryAfter };
      }
      return {
        async succeeded(at) {
          await giveBack();
          await store.trustSignIn(`${caller}|${name}`, new Date(at + TRUST_MS).toISOString());
        },
        cancelled: giveBack,
      };
    },
  };
}
