// The kinds of field a stored record has. Each kind is one zod schema (what
// the admin API validates, what the OpenAPI document shows, what the store
// checks before it writes) plus what only a file needs: a value as a CSV cell
// or hand-written JSON writes it, turned into the schema's type (`fromFile`),
// and how the value maps to its column and back. The rules are in docs/operating.md#one-set-of-rules.
import { z } from 'zod';

/** A value the schema accepts but the store cannot keep (30 February); thrown by `toColumn`, reported with the field's path. */
export class FieldProblem extends Error {
  override readonly name = 'FieldProblem';
}

export interface Field<S extends z.ZodType = z.ZodType, K extends string = string> {
  readonly schema: S;
  /** The column the value is stored in. */
  readonly column: K;
  /** A CSV header must name it; a record must have it. */
  readonly required: boolean;
  /** A file's spelling of the value (a number for an id, `"true"` for a flag, an empty cell) as the schema's type. */
  readonly fromFile: (value: unknown) => unknown;
  /** The checked value (undefined: left out) as stored; undefined keeps the stored value (or the column's default for a new row). */
  readonly toColumn: (value: unknown) => unknown;
  /** The column's value as the record shows it. */
  readonly fromColumn: (value: unknown) => unknown;
  /** What a new row stores when the value is left out. */
  readonly default: unknown;
  /** The admin API's list filter on this field (a query value, checked), or null when lists cannot be filtered by it. */
  readonly filter: z.ZodType | null;
}

/** Lists may be filtered by the field (equality); a string also describes the filter. */
export type FilterOption = true | string;

interface FilterOptions {
  readonly filter?: FilterOption;
}

// A query string carries text: a value to match, one of the choices, or true/false.
function filterOf(option: FilterOption | undefined, schema: z.ZodType): z.ZodType | null {
  if (option === undefined) return null;
  const optional = schema.optional();
  return option === true ? optional : optional.describe(option);
}
const anyText = () => z.string().min(1);
const oneOf = (choices: readonly [string, ...string[]]) => z.enum(choices);
const trueOrFalse = () => z.enum(['true', 'false']).transform((value) => value === 'true');

// The messages are the importer's (pinned in test/import/import.test.ts);
// the admin API gives the same ones by path.
const REQUIRED = 'is required.';
const tooLong = (max: number) => `must be at most ${max} characters.`;
// PostgreSQL holds no NUL in a text: a record with one is refused here, on
// both stores, rather than fail the write as the store's failure
// (docs/design.md#a-nul-in-a-parameter).
const NO_NUL = 'must not hold a NUL character.';
const noNul = (value: string) => !value.includes('\0');
const textError = (issue: { input?: unknown }) =>
  issue.input === undefined || issue.input === null ? REQUIRED : 'must be a string.';

// Hand-written JSON has numbers for ids and badges; CSV has text only.
const numberAsText = (value: unknown): unknown =>
  typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
const same = (value: unknown): unknown => value;
const text = (value: unknown): string => String(value);
const nullableText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

interface TextOptions extends FilterOptions {
  readonly description?: string;
  /** Stored form of the value, such as a school's normalised key. */
  readonly toColumn?: (value: string) => string;
}

/** A required identifier or name: trimmed, not empty, at most `max` characters. */
export function requiredText<K extends string>(column: K, max: number, options: TextOptions = {}) {
  const schema = z
    .string({ error: textError })
    .trim()
    .min(1, { error: REQUIRED, abort: true })
    .max(max, tooLong(max))
    .refine(noNul, NO_NUL);
  const convert = options.toColumn ?? same;
  return field(options.description === undefined ? schema : schema.describe(options.description), {
    column,
    required: true,
    fromFile: numberAsText,
    toColumn: (value) => convert(value as string),
    fromColumn: text,
    filter: filterOf(options.filter, anyText()),
  });
}

/** Free text that must be present but may be empty, kept as written (a note's text). */
export function presentText<K extends string>(column: K, max: number, description?: string) {
  const schema = z.string({ error: textError }).max(max, tooLong(max)).refine(noNul, NO_NUL);
  return field(description === undefined ? schema : schema.describe(description), {
    column,
    required: true,
    fromFile: numberAsText,
    toColumn: same,
    fromColumn: text,
  });
}

/** Optional text, trimmed, at most `max` characters; null or empty clears it (a CSV cell cannot say null). */
export function optionalText<K extends string>(
  column: K,
  max: number,
  description: string,
  options: FilterOptions = {},
) {
  const schema = z
    .string({ error: 'must be a string.' })
    .trim()
    .max(max, tooLong(max))
    .refine(noNul, NO_NUL)
    .nullable()
    .optional()
    .describe(`${description}; null clears it.`);
  return field(schema, {
    column,
    required: false,
    fromFile: numberAsText,
    toColumn: (value) => (value === undefined ? undefined : value === null || value === '' ? null : value),
    fromColumn: nullableText,
    filter: filterOf(options.filter, anyText()),
  });
}

/**
 * Optional text that must pass a check (a time zone, quiet hours), trimmed,
 * at most `max` characters. Null or an empty cell sets `fallback` (null:
 * clears it); a new record left without it stores `fallback`.
 */
export function checkedText<K extends string>(
  column: K,
  max: number,
  check: { readonly valid: (value: string) => boolean; readonly message: string },
  description: string,
  fallback: string | null = null,
) {
  const schema = z
    .string({ error: 'must be a string.' })
    .trim()
    .max(max, tooLong(max))
    .refine(noNul, NO_NUL)
    .refine((value) => value === '' || check.valid(value), check.message)
    .nullable()
    .optional()
    .describe(`${description}; null ${fallback === null ? 'clears it' : `sets ${fallback}`}.`);
  return field(schema, {
    column,
    required: false,
    fromFile: numberAsText,
    toColumn: (value) => (value === undefined ? undefined : value === null || value === '' ? fallback : value),
    fromColumn: (value) => (value === null || value === undefined ? fallback : String(value)),
    default: fallback,
  });
}

/**
 * An optional JSON object checked by `schema`, stored as its JSON text. A
 * CSV cell holds the JSON text; null or an empty cell clears it.
 */
export function jsonObject<K extends string, S extends z.ZodType>(column: K, schema: S, description: string) {
  return field(schema.nullable().optional().describe(`${description}; null clears it.`), {
    column,
    required: false,
    fromFile: (value) => {
      if (typeof value !== 'string') return value;
      if (value.trim() === '') return null;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return value;
      }
    },
    toColumn: (value) => (value === undefined ? undefined : value === null ? null : JSON.stringify(value)),
    fromColumn: (value) => {
      if (value === null || value === undefined) return null;
      try {
        return JSON.parse(String(value)) as unknown;
      } catch {
        // Only a hand-edited row could hold anything else: read as none.
        return null;
      }
    },
  });
}

interface ChoiceOptions<T extends string> extends FilterOptions {
  readonly description?: string;
  /** Stored for a new record when left out. */
  readonly default?: T;
  /** The refusal; `must be one of a, b.` unless given. */
  readonly message?: string;
  /** A file may write it in any letter case (`Android`). */
  readonly anyCase?: boolean;
  /** What an empty cell or null in a file means: left out (keep), or this value. */
  readonly empty?: T;
}

/**
 * One of a few words, optional. Choices that are digits (a student's `active`,
 * "1" or "0") may be written as JSON numbers too (`1`, `0`): the same value for
 * the admin API, the importer and the store (test/admin/admin-api.test.ts, test/admin/same-rules.test.ts).
 */
export function choice<K extends string, const T extends readonly [string, ...string[]]>(
  column: K,
  choices: T,
  options: ChoiceOptions<T[number]> = {},
) {
  const error = options.message ?? `must be one of ${choices.join(', ')}.`;
  const words = z.enum(choices, { error });
  const numbers = choices.filter((c) => /^(0|[1-9][0-9]*)$/.test(c)).map(Number);
  const schema = (
    numbers.length === 0
      ? words
      : z
          .union([words, z.literal(numbers as [number, ...number[]])], { error })
          .transform((value) => String(value) as T[number])
  ).optional();
  return field(options.description === undefined ? schema : schema.describe(options.description), {
    column,
    required: false,
    fromFile: (value) => {
      const converted = numberAsText(value);
      if (typeof converted !== 'string') return converted === null ? options.empty : converted;
      const trimmed = converted.trim();
      if (trimmed === '') return options.empty;
      return options.anyCase === true ? trimmed.toLowerCase() : trimmed;
    },
    toColumn: same,
    fromColumn: text,
    default: options.default,
    filter: filterOf(options.filter, oneOf(choices)),
  });
}

/** One of a few words, or null (none); a file may write it in any letter case, an empty cell clears it. */
export function nullableChoice<K extends string, const T extends readonly [string, ...string[]]>(
  column: K,
  choices: T,
  description?: string,
  options: FilterOptions = {},
) {
  const schema = z
    .enum(choices, { error: `must be one of ${choices.join(', ')}.` })
    .nullable()
    .optional();
  return field(description === undefined ? schema : schema.describe(description), {
    column,
    required: false,
    fromFile: (value) => {
      if (typeof value !== 'string') return value;
      const trimmed = value.trim();
      return trimmed === '' ? null : trimmed.toLowerCase();
    },
    toColumn: same,
    fromColumn: nullableText,
    default: null,
    filter: filterOf(options.filter, oneOf(choices)),
  });
}

/** true or false, stored as 1 or 0 (the same on both dialects); false for a new record. */
export function flag<K extends string>(column: K, description?: string, options: FilterOptions = {}) {
  const schema = z.boolean({ error: 'must be true or false.' }).optional();
  return field(description === undefined ? schema : schema.describe(description), {
    column,
    required: false,
    fromFile: (value) => {
      if (value === null || value === '') return undefined;
      if (value === 'true' || value === 1 || value === '1') return true;
      if (value === 'false' || value === 0 || value === '0') return false;
      return value;
    },
    toColumn: (value) => (value === undefined ? undefined : value === true ? 1 : 0),
    // An integer on both dialects; Number() also copes with a driver that hands back a string or boolean.
    fromColumn: (value) => Number(value) === 1,
    default: 0,
    filter: filterOf(options.filter, trueOrFalse()),
  });
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i;

// Date.UTC rolls 30 February over to March; a real date survives the round trip.
function calendarDate(date: string): string {
  const match = DATE.exec(date);
  if (match === null) throw new FieldProblem('is not a calendar date.');
  const [, year, month, day] = match;
  const utc = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (Number.isNaN(utc.getTime()) || utc.toISOString().slice(0, 10) !== date)
    throw new FieldProblem('is not a calendar date.');
  return date;
}

/** Required text, trimmed, in an ISO 8601 form (`pattern`; `message` when it is not). */
function isoText(pattern: RegExp, message: string, description?: string) {
  const schema = z.string({ error: textError }).trim().min(1, { error: REQUIRED, abort: true }).regex(pattern, message);
  return description === undefined ? schema : schema.describe(description);
}

/** A date as written (the day the school recorded), YYYY-MM-DD. Whether the day exists is the store's check (a 422 in the admin API). */
export function isoDate<K extends string>(column: K, description?: string) {
  return field(isoText(DATE, 'must be an ISO 8601 date (YYYY-MM-DD).', description), {
    column,
    required: true,
    fromFile: numberAsText,
    toColumn: (value) => calendarDate(value as string),
    fromColumn: text,
  });
}

/**
 * A timestamp, stored as UTC `YYYY-MM-DDTHH:mm:ss.sssZ` so that stored dates
 * sort as text. A date alone is midnight UTC; a time without offset is read
 * as UTC rather than in the server's zone.
 */
export function isoTimestamp<K extends string>(column: K, description?: string) {
  return field(isoText(TIMESTAMP, 'must be an ISO 8601 timestamp.', description), {
    column,
    required: true,
    fromFile: numberAsText,
    toColumn: (value) => {
      const match = TIMESTAMP.exec(value as string);
      if (match === null) throw new FieldProblem('is not a valid time.');
      const [, day] = match;
      // The time and the offset are optional groups: undefined when absent.
      const time: string | undefined = match[2];
      const offset: string | undefined = match[3];
      const date = calendarDate(day);
      const zone = offset ?? 'Z';
      const normalisedZone = /^[+-]\d{4}$/.test(zone) ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
      const parsed = new Date(`${date}T${time ?? '00:00'}${normalisedZone.toUpperCase()}`);
      if (Number.isNaN(parsed.getTime())) throw new FieldProblem('is not a valid time.');
      return parsed.toISOString();
    },
    fromColumn: text,
  });
}

function field<S extends z.ZodType, K extends string>(
  schema: S,
  parts: Omit<Field<S, K>, 'schema' | 'default' | 'filter'> & { default?: unknown; filter?: z.ZodType | null },
): Field<S, K> {
  return { schema, ...parts, default: parts.default ?? null, filter: parts.filter ?? null };
}
