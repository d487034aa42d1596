// COUNT/DURATION, such as `3/10m` (at most 3 in ten minutes): one entry of the
// AUTH_CODE_LIMIT_* values (src/delivery/config/limit-syntax.ts) and the
// `limit` and `enumeration` budgets of an access policy (src/access/policy.ts).

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86400 } as const;
const ENTRY = /^([0-9]+)\s*\/\s*([0-9]+)?\s*([smhd])$/;
/** The longest window either syntax accepts. */
export const MAX_WINDOW_SECONDS = 30 * 86400;

/** One `COUNT/DURATION` entry (units s, m, h, d, the number before the unit optional: `30/m`; a count of at least 1, a window up to 30 days), or null when it is not one. */
export function parseRateEntry(entry: string): { max: number; windowSeconds: number } | null {
  const match = ENTRY.exec(entry.trim().toLowerCase());
  if (match === null) return null;
  const max = Number(match[1]);
  const windowSeconds = Number(match[2] ?? '1') * UNIT_SECONDS[match[3] as keyof typeof UNIT_SECONDS];
  if (!Number.isSafeInteger(max) || max < 1 || windowSeconds < 1 || windowSeconds > MAX_WINDOW_SECONDS) return null;
  return { max, windowSeconds };
}
