// Field-level checks of imported values. Imports come from CSV and JSON
// written by hand, so the store accepts the obvious spellings (numbers for
// ids, "true"/"false" for flags) and refuses everything else by path.

export class InvalidDataSetError extends Error {
  override readonly name = 'InvalidDataSetError';

  constructor(
    /** Where the bad value is, e.g. `students[3].active`. */
    readonly path: string,
    problem: string,
  ) {
    super(`${path} ${problem}`);
  }
}

function asText(value: unknown, path: string): string | null | undefined {
  if (value === undefined || value === null) return value;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new InvalidDataSetError(path, 'must be a string.');
}

/** A non-empty identifier or name, trimmed. */
export function requiredText(value: unknown, path: string): string {
  const text = asText(value, path)?.trim();
  if (text === undefined || text === null || text === '') throw new InvalidDataSetError(path, 'is required.');
  return text;
}

/** Free text that must be present but may be empty, kept as written. */
export function presentText(value: unknown, path: string): string {
  const text = asText(value, path);
  if (text === undefined || text === null) throw new InvalidDataSetError(path, 'is required.');
  return text;
}

/** undefined: not given; null: cleared. A CSV cell cannot say null, so '' means null too. */
export function optionalText(value: unknown, path: string): string | null | undefined {
  const text = asText(value, path);
  if (text === undefined || text === null) return text;
  const trimmed = text.trim();
  return trimmed === '' ? null : trimmed;
}

export function optionalChoice<T extends string>(value: unknown, path: string, choices: readonly T[]): T | null | undefined {
  const text = optionalText(value, path);
  if (text === undefined || text === null) return text;
  const lower = text.toLowerCase();
  const choice = choices.find((candidate) => candidate === lower);
  if (choice === undefined) throw new InvalidDataSetError(path, `must be one of ${choices.join(', ')}.`);
  return choice;
}

export function optionalFlag(value: unknown, path: string): boolean | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (value === true || value === 'true' || value === 1 || value === '1') return true;
  if (value === false || value === 'false' || value === 0 || value === '0') return false;
  throw new InvalidDataSetError(path, 'must be true or false.');
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i;

function calendarDate(text: string, path: string): string {
  const match = DATE.exec(text);
  if (match === null) throw new InvalidDataSetError(path, 'must be an ISO 8601 date (YYYY-MM-DD).');
  const [date, year, month, day] = match as unknown as [string, string, string, string];
  // Date.UTC rolls 30 February over to March; a real date survives the round trip.
  const utc = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (Number.isNaN(utc.getTime()) || utc.toISOString().slice(0, 10) !== date) {
    throw new InvalidDataSetError(path, 'is not a calendar date.');
  }
  return date;
}

/** A date as written (the day the school recorded), YYYY-MM-DD. */
export function isoDate(value: unknown, path: string): string {
  return calendarDate(requiredText(value, path), path);
}

/**
 * A timestamp as UTC `YYYY-MM-DDTHH:mm:ss.sssZ`, so that stored dates sort as
 * text. A date alone is midnight UTC; a time without offset is read as UTC
 * rather than in the server's zone.
 */
export function isoTimestamp(value: unknown, path: string): string {
  const text = requiredText(value, path);
  const match = TIMESTAMP.exec(text);
  if (match === null) throw new InvalidDataSetError(path, 'must be an ISO 8601 timestamp.');
  const date = calendarDate(text, path);
  const time = match[1] ?? '00:00';
  const offset = match[2] ?? 'Z';
  const normalisedOffset = /^[+-]\d{4}$/.test(offset) ? `${offset.slice(0, 3)}:${offset.slice(3)}` : offset;
  const parsed = new Date(`${date}T${time}${normalisedOffset.toUpperCase()}`);
  if (Number.isNaN(parsed.getTime())) throw new InvalidDataSetError(path, 'is not a valid time.');
  return parsed.toISOString();
}
