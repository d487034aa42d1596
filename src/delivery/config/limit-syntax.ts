// AUTH_CODE_LIMIT_* values: `N/DURATION` entries separated by commas, such as
// `1/60s,3/10m,10/24h` (at most 1 a minute, 3 in ten minutes, 10 a day), or
// `off`.
import type { AuthCodeLimit, AuthCodeLimitScope } from '../../store';

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86400 } as const;
const ENTRY = /^([0-9]+)\s*\/\s*([0-9]+)\s*([smhd])$/;

export function parseLimits(name: string, scope: AuthCodeLimitScope, text: string): { ok: true; limits: AuthCodeLimit[] } | { ok: false; problem: string } {
  if (text.trim().toLowerCase() === 'off') return { ok: true, limits: [] };
  const limits: AuthCodeLimit[] = [];
  for (const entry of text.split(',').map((e) => e.trim())) {
    const match = ENTRY.exec(entry.toLowerCase());
    const max = match === null ? 0 : Number(match[1]);
    const windowSeconds = match === null ? 0 : Number(match[2]) * UNIT_SECONDS[match[3] as keyof typeof UNIT_SECONDS];
    if (match === null || max < 1 || windowSeconds < 1 || windowSeconds > 30 * 86400) {
      return { ok: false, problem: `${name}: "${entry}" is not a limit; write COUNT/DURATION entries such as 1/60s,3/10m,10/24h (units s, m, h, d; at most 30d), or off` };
    }
    limits.push({ scope, max, windowSeconds });
  }
  return { ok: true, limits };
}
