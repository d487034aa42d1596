// The AUTH_CODE_LIMIT_* values: COUNT/DURATION entries (src/shared/rate-entry.ts)
// separated by commas, or `off`.
import { parseRateEntry } from '../../shared/rate-entry';
import type { AuthCodeLimit, AuthCodeLimitScope } from '../../store';

export function parseLimits(
  name: string,
  scope: AuthCodeLimitScope,
  text: string,
): { ok: true; limits: AuthCodeLimit[] } | { ok: false; problem: string } {
  if (text.trim().toLowerCase() === 'off') return { ok: true, limits: [] };
  const limits: AuthCodeLimit[] = [];
  for (const entry of text.split(',').map((e) => e.trim())) {
    const parsed = parseRateEntry(entry);
    if (parsed === null) {
      return {
        ok: false,
        problem: `${name}: "${entry}" is not a limit; write COUNT/DURATION entries such as 1/60s,3/10m,10/24h (units s, m, h, d; at most 30d), or off`,
      };
    }
    limits.push({ scope, ...parsed });
  }
  return { ok: true, limits };
}
