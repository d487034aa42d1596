// The zod readers of environment values that every part of the configuration
// shares, each failing with a message that names the variable.
import { isSupportedCountry } from 'libphonenumber-js/max';
import { z } from 'zod';

export const bool = (name: string) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .refine((v) => ['true', 'false', '1', '0', 'yes', 'no'].includes(v), `${name} must be true or false`)
    .transform((v) => v === 'true' || v === '1' || v === 'yes');

export const integer = (name: string, min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^[0-9]+$/, `${name} must be a whole number`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `${name} must be between ${min} and ${max}`);

/** A whole number from `min` to `max` (of `unit`, when given), or `off`: null. */
export const integerOrOff = (name: string, min: number, max: number, unit?: string) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .refine(
      (v) => v === 'off' || (/^[0-9]+$/.test(v) && Number(v) >= min && Number(v) <= max),
      `${name} must be a whole number${unit === undefined ? '' : ` of ${unit}`} from ${min} to ${max}, or off`,
    )
    .transform((v) => (v === 'off' ? null : Number(v)));

export const country = (name: string) =>
  z
    .string()
    .trim()
    .toUpperCase()
    .refine((c) => isSupportedCountry(c), `${name} must be an ISO 3166 country code such as SY`)
    .transform((c) => c);

export const url = (name: string) =>
  z
    .string()
    .trim()
    .refine((v) => /^https?:\/\/[^\s/]+/.test(v) && URL.canParse(v), `${name} must be an http:// or https:// URL`);
