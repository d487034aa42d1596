// `limit` and `enumeration` in an access policy: COUNT/DURATION, the same
// syntax as the AuthCode limits (src/delivery/config/limit-syntax.ts).
import { parseRateEntry } from '../delivery/config/limit-syntax';
import type { RateRule } from './contracts';

export class RateRuleError extends Error {
  override readonly name = 'RateRuleError';
}

/** `120/1m` as a RateRule; throws RateRuleError saying what is expected. */
export function parseRateRule(text: string): RateRule {
  const parsed = parseRateEntry(text);
  if (parsed === null) {
    throw new RateRuleError(`"${text}" is not a budget; write COUNT/DURATION such as 120/1m (units s, m, h, d; at most 30d)`);
  }
  return { max: parsed.max, windowMs: parsed.windowSeconds * 1000 };
}
