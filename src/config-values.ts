// The zod readers of environment values that every part of the configuration
// shares, each failing with a message that names the variable, and the
// description every setting is declared with: docs/configuration.md is
// generated from these declarations (`npm run docs:config`). Also the reading
// of secret settings given as files (`ADMIN_TOKEN_FILE`).
import { closeSync, openSync, readSync } from 'node:fs';
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
  /** A credential: it may also be read from the file that the variable `<NAME>_FILE` names (resolveSecretFiles). */
  readonly secret?: boolean;
}

/** The metadata a setting's declaration carries: `.meta(setting('service', 'The HTTP port.'))`. */
export function setting(section: ConfigSection, description: string, defaultText?: string): SettingDoc & z.GlobalMeta {
  return defaultText === undefined ? { section, description } : { section, description, defaultText };
}

/** The metadata of a secret setting: as `setting`, and it may be given in a file (`ADMIN_TOKEN_FILE`). */
export function secretSetting(
  section: ConfigSection,
  description: string,
  defaultText?: string,
): SettingDoc & z.GlobalMeta {
  return { ...setting(section, description, defaultText), secret: true };
}

/** Whether a setting's reader was declared with `secretSetting`. */
export function isSecretSetting(schema: z.ZodType): boolean {
  return z.globalRegistry.get(schema)?.secret === true;
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

/** An IANA time zone this Node knows (`UTC`, `Asia/Riyadh`), checked by Intl itself. */
export const timeZone = (name: string) =>
  z
    .string()
    .trim()
    .refine((zone) => {
      if (zone === '' || zone.length > 64) return false;
      try {
        new Intl.DateTimeFormat('en', { timeZone: zone });
        return true;
      } catch {
        return false;
      }
    }, `${name} must be an IANA time zone such as UTC or Asia/Riyadh`)
    .meta(accepts('an IANA time zone such as `UTC` or `Asia/Riyadh`'));

/** A trimmed string that says something: a path, a name (loadConfig has already taken a blank one as unset). */
export const text = (name: string) => z.string().trim().min(1, `${name} must not be blank`);

// Secret settings given as files (docs/configuration.md, docs/operating.md#secrets-in-files):
// `ADMIN_TOKEN_FILE=/run/secrets/admin_token` sets ADMIN_TOKEN to that file's
// content, as the official container images read `POSTGRES_PASSWORD_FILE`.
// loadConfig does it before the settings are checked, so every reader of the
// configuration sees the value as if the variable itself had been set.
// Problems name the variable and the path, never what the file holds.

const SUFFIX = '_FILE';

/** A secret is a token or a short document (SMS_HTTP_HEADERS); a larger file is a wrong path, such as /dev/zero. */
export const MAX_SECRET_FILE_BYTES = 64 * 1024;

/**
 * `env` with each `<NAME>_FILE` of a secret setting replaced by `<NAME>` holding
 * the file's content, one trailing newline (LF or CRLF) removed; or every problem:
 * a file unreadable, empty or too large, both `<NAME>` and `<NAME>_FILE` set, or a
 * `_FILE` variable for a declared setting that is not a secret.
 */
export function resolveSecretFiles(
  env: Readonly<Record<string, string>>,
  settings: { readonly secret: ReadonlySet<string>; readonly all: ReadonlySet<string> },
): { ok: true; env: Record<string, string> } | { ok: false; problems: string[] } {
  const resolved: Record<string, string> = { ...env };
  const problems: string[] = [];
  for (const [variable, file] of Object.entries(env)) {
    if (!variable.endsWith(SUFFIX) || settings.all.has(variable)) continue;
    const name = variable.slice(0, -SUFFIX.length);
    if (!settings.secret.has(name)) {
      // Another program's variable (POSTGRES_PASSWORD_FILE in a shared environment) is none of ours.
      if (settings.all.has(name))
        problems.push(
          `${variable}: unknown setting: ${name} is not a secret, so it is not read from a file (those that are: ${[...settings.secret].join(', ')})`,
        );
      continue;
    }
    delete resolved[variable];
    if (env[name] !== undefined) {
      problems.push(`${name} and ${variable} are both set: give the value in one of them`);
      continue;
    }
    // Trimmed as every path setting is: a stray space after the path in an env file is no part of it.
    const read = readSecretFile(file.trim());
    if (read.ok) resolved[name] = read.content;
    else problems.push(`${variable}: ${read.problem}`);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, env: resolved };
}

/** The file's text without its last line break; the problem names the path, never the content. */
function readSecretFile(file: string): { ok: true; content: string } | { ok: false; problem: string } {
  const buffer = Buffer.alloc(MAX_SECRET_FILE_BYTES + 1);
  let length = 0;
  try {
    const fd = openSync(file, 'r');
    try {
      let read: number;
      while (length < buffer.length && (read = readSync(fd, buffer, length, buffer.length - length, null)) > 0)
        length += read;
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    return { ok: false, problem: `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}` };
  }
  if (length > MAX_SECRET_FILE_BYTES)
    return { ok: false, problem: `${file} is larger than ${MAX_SECRET_FILE_BYTES} bytes` };
  const content = buffer.toString('utf8', 0, length).replace(/\r?\n$/, '');
  if (content === '') return { ok: false, problem: `${file} is empty` };
  return { ok: true, content };
}
