import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { maskPhone } from '../log';
import { echoed } from '../shared/echo';
import { ClientError } from './errors';

export interface PhoneRules {
  /** Region used to read numbers written without a country code (ISO 3166 alpha-2). */
  readonly defaultRegion: CountryCode;
  /** Countries whose numbers are accepted. */
  readonly allowedCountries: readonly CountryCode[];
}

const MOBILE_TYPES = new Set(['MOBILE', 'FIXED_LINE_OR_MOBILE']);

/**
 * A mobile number of an allowed country, normalised to E.164; anything else
 * is the caller's mistake, told with the number masked as in the logs (an
 * error text may be logged or shown to someone other than its owner).
 */
export function normalisePhone(raw: string | null, rules: PhoneRules): string {
  if (raw === null || raw.trim() === '') throw new ClientError('phone_missing', 'A phone number is required.');
  const parsed = parsePhoneNumberFromString(raw.trim(), rules.defaultRegion);
  if (!parsed || !parsed.isValid())
    throw new ClientError('phone_invalid', `The phone number ${maskPhone(echoed(raw.trim()))} is not a valid number.`);
  const type = parsed.getType();
  if (type === undefined || !MOBILE_TYPES.has(type)) {
    throw new ClientError('phone_not_mobile', `The phone number ${maskPhone(parsed.number)} is not a mobile number.`);
  }
  if (!parsed.country || !rules.allowedCountries.includes(parsed.country)) {
    throw new ClientError(
      'phone_country',
      `Phone numbers of ${parsed.country ?? 'that region'} are not accepted by this service.`,
    );
  }
  return parsed.number;
}
