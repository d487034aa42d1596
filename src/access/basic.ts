// HTTP Basic credentials checked against the policy's bcrypt hashes.
//
// bcrypt is slow on purpose (tens of milliseconds of CPU at cost 10), far
// more than a whole call costs, so an answer is remembered for a short while,
// keyed by a salted hash of the header: a client sending the same header call
// after call pays bcrypt once a minute. The cache holds salted SHA-256
// digests, never a password, and a new policy (SIGHUP) starts empty.
import { hash, randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';

/** How long a verified (or refused) header is remembered. */
export const CREDENTIAL_CACHE_MS = 60_000;
const MAX_CACHED = 10_000;

// Compared against when the user is unknown, so that an unknown name costs
// the same time as a wrong password and does not reveal which names exist.
const UNKNOWN_USER_HASH = '$2b$10$.1IaZorsiUkc0Tg8.Liz4e6o8r8gAbJaDcirJJKP5IJaNzmG0sZ92';

export interface BasicCredentials {
  readonly user: string;
  readonly password: string;
}

/** Reads `Authorization: Basic base64(user:password)` (UTF-8, RFC 7617); null when absent or malformed. */
export function readBasicCredentials(header: string | undefined): BasicCredentials | null {
  if (header === undefined) return null;
  const match = /^basic[ \t]+([A-Za-z0-9+/=_-]+)[ \t]*$/i.exec(header);
  if (match === null) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The verified user name, or null; synchronous when the answer is remembered. */
export type BasicVerifier = (header: string | undefined) => string | null | Promise<string | null>;

/**
 * At most this many different headers go through bcrypt at once. Each costs
 * about 0.1 s of CPU: a flood of made-up passwords could otherwise take the
 * CPU from every other call. Past it a header is refused (401, nothing
 * remembered) and the client's retry is checked once a slot is free.
 */
export const MAX_CONCURRENT_CHECKS = 8;

export function createBasicVerifier(users: ReadonlyMap<string, string>, now: () => number = Date.now, maxConcurrent = MAX_CONCURRENT_CHECKS): BasicVerifier {
  // A random salt per cache: a digest is worth nothing outside this process's memory.
  const salt = randomBytes(32).toString('base64');
  const cache = new Map<string, { user: string | null; until: number }>();
  const pending = new Map<string, Promise<string | null>>();

  const verify = async (digest: string, credentials: BasicCredentials): Promise<string | null> => {
    const stored = users.get(credentials.user);
    let ok: boolean;
    try {
      ok = await bcrypt.compare(credentials.password, stored ?? UNKNOWN_USER_HASH);
    } catch {
      ok = false;
    }
    const user = ok && stored !== undefined ? credentials.user : null;
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(digest, { user, until: now() + CREDENTIAL_CACHE_MS });
    return user;
  };

  return (header) => {
    if (header === undefined || users.size === 0) return null;
    // One-shot crypto.hash: a quarter of an HMAC's cost, measured, on every call.
    const digest = hash('sha256', salt + header, 'base64');
    const cached = cache.get(digest);
    if (cached !== undefined && cached.until > now()) return cached.user;
    const credentials = readBasicCredentials(header);
    if (credentials === null) return null;
    // Concurrent calls with the same header share one bcrypt run.
    let running = pending.get(digest);
    if (running === undefined) {
      if (pending.size >= maxConcurrent) return null;
      running = verify(digest, credentials).finally(() => pending.delete(digest));
      pending.set(digest, running);
    }
    return running;
  };
}
