/**
 * A school is identified by its base URL, matched case-insensitively on
 * scheme and host with a trailing `/` ignored (docs/design.md#school-matching). The key is
 * the canonical form both the store and every lookup use.
 */
export function schoolKey(baseUrl: string): string {
  const known = keys.get(baseUrl);
  if (known !== undefined) return known;
  const key = keyOf(baseUrl);
  if (keys.size >= KEYS_KEPT) keys.clear();
  keys.set(baseUrl, key);
  return key;
}

// Every SendNotificationType call checks the caller's school against the
// student's, and parsing a URL is most of that: the few schools' URLs come
// again and again, so their keys are kept (at most KEYS_KEPT, as callers may
// send anything; the map starts over when full).
const KEYS_KEPT = 1024;
const keys = new Map<string, string>();

function keyOf(baseUrl: string): string {
  const trimmed = baseUrl.trim();
  let parsed: URL | null;
  try {
    parsed = new URL(trimmed);
  } catch {
    parsed = null;
  }
  if (parsed === null || parsed.host === '') {
    return stripTrailingSlashes(trimmed);
  }
  // URL already lower-cases scheme and host and drops a default port.
  const path = stripTrailingSlashes(parsed.pathname);
  return `${parsed.protocol}//${parsed.host}${path}${parsed.search}`;
}

function stripTrailingSlashes(value: string): string {
  let end = value.length;
  while (end > 0 && value.charCodeAt(end - 1) === 0x2f) end--;
  return value.slice(0, end);
}
