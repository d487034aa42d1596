// Retry-After is either a number of seconds or an HTTP date (RFC 9110 10.2.3).
// A value far in the future is capped: a broken header must not park a
// message for years.
const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/** Milliseconds to wait, or null when the header is absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  let ms: number;
  if (/^[0-9]+$/.test(text)) ms = Number(text) * 1000;
  else {
    const date = Date.parse(text);
    if (Number.isNaN(date)) return null;
    ms = Math.max(0, date - nowMs);
  }
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}
