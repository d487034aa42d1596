// A gateway that refuses a message often echoes the request in its answer,
// and the answer's start becomes the message's lastError (stored, logged,
// listed by the admin API). The recipient's number is hidden there in every
// form a gateway may write it, as maskPhone hides it in the log: E.164
// (`+963944123456`), digits only (`963944123456`), national (`0944123456`),
// form-encoded (`%2B963944123456`), spaced or dashed (`+963 944-123-456`).
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { maskPhone } from '../../log';

// What a gateway may put between digits: spaces (also form-encoded), dots, dashes, brackets.
const SEPARATOR = String.raw`(?:[\s.()\-]|%20|\+)*`;

const spaced = (digits: string) => [...digits].join(SEPARATOR);

/** `text` with every form of `phone` (E.164) replaced by its masked form, the last three digits kept. */
export function hidePhoneIn(text: string, phone: string): string {
  const parsed = parsePhoneNumberFromString(phone);
  const national = parsed?.nationalNumber ?? phone.replace(/\D/g, '');
  if (national.length < 4) return text;
  const country =
    parsed === undefined ? '' : `(?:(?:%2B|\\+|00)?${SEPARATOR}${spaced(parsed.countryCallingCode)}${SEPARATOR}|`;
  // The country code (with +, %2B or 00, or none) or a national 0, then the national number.
  const pattern = new RegExp(`${country === '' ? '(?:' : country}0${SEPARATOR})?${spaced(national)}`, 'gi');
  return text.replace(pattern, maskPhone);
}
