// The zod readers of environment values that every part of the configuration
// shares, each failing with a message that names the variable, and the
// description every setting is declared with: docs/configuration.md is
// generated from these declarations (`npm run docs:config`).
import { isSupportedCountry } from 'libphonenumber-js/max';
import { z } from 'zod';

/** The sections of docs/configuration.md, in its order, with their titles. */
export const CONFIG_SECTIONS = {
  service: 'The service',
  store: 'Storage',
  requests: 'Requests and connections',
  access: 'Access, audit and the admin API',
  console: "The operators' console",
  observability: 'Logs, metrics and shutdown',
  authCode: 'AuthCode: phone numbers, codes and limits',
  delivery: 'Delivery: the worker and the outbox',
  push: 'Push providers',
  sms: 'SMS providers',
  migration: 'Moving off the legacy service',
} as const;

export type ConfigSection = keyof typeof CONFIG_SECTIONS;

/** What docs/configuration.md says of a setting; Markdown, links relative to docs/. */
export interface SettingDoc {
  readonly section: ConfigSection;
  readonly description: string;
  /** The default in words, where the declared one does not say it (unset, or worked out at start). */
  readonly defaultText?: string;
}

/** The metadata a setting's declaration carries: `.meta(setting('service', 'The HTTP port.'))`. */
export function setting(section: ConfigSection, description: string, defaultText?: string): SettingDoc & z.GlobalMeta {
  return defaultText === undefined ? { section, description } : { section, description, defaultText };
}

/** The values a reader below accepts, in words, for docs/configuration.md. */
const accepts = (values: string) => ({ accepts: values });

export const bool = (name: string) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .refine((v) => ['true', 'false', '1', '0', 'yes', 'no'].includes(v), `${name} must be true or false`)
    .transform((v) => v === 'true' || v === '1' || v === 'yes')
    .meta(accepts('`true` or `false` (also `1`/`0`, `yes`/`no`)'));

export const integer = (name: string, min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^[0-9]+$/, `${name} must be a whole number`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `${name} must be between ${min} and ${max}`)
    .meta(accepts(`a whole number from ${min} to ${max}`));

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
    .transform((v) => (v === 'off' ? null : Number(v)))
    .meta(accepts(`a whole number${unit === undefined ? '' : ` of ${unit}`} from ${min} to ${max}, or \`off\``));

/** A fraction from 0 to 1 (`0.25`). */
export const fraction = (name: string) =>
  z
    .string()
    .trim()
    .regex(/^(0|1|0?\.[0-9]+|1\.0*)$/, `${name} must be a fraction from 0 to 1, e.g. 0.25`)
    .transform(Number)
    .meta(accepts('a fraction from 0 to 1, e.g. `0.25`'));

export const country = (name: string) =>
  z
    .string()
    .trim()
    .toUpperCase()
    .refine((c) => isSupportedCountry(c), `${name} must be an ISO 3166 country code such as SY`)
    .transform((c) => c)
    .meta(accepts('an ISO 3166 country code such as `SY`'));

export const url = (name: string) =>
  z
    .string()
    .trim()
    .refine((v) => /^https?:\/\/[^\s/]+/.test(v) && URL.canParse(v), `${name} must be an http:// or https:// URL`)
    .meta(accepts('an `http://` or `https://` URL'));

/** A trimmed string that says something: a path, a name (loadConfig has already taken a blank one as unset). */
export const text = (name: string) => z.string().trim().min(1, `${name} must not be blank`);
