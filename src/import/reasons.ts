// Why the import refuses a row or a file, as a code with parameters
// (docs/design.md#import-refusal-codes): the console says it in the page's
// language (src/console/i18n.ts), `npm run import` and the reports' `reason`
// texts in English from the table below. A value given in a refused row is a
// parameter only once masked where it may be personal data (maskedValue).
import { QUIET_HOURS_SYNTAX } from '../domain/school-time';
import { maskPhone } from '../log';

/** Every reason, row (`row-`, `field-`) or file (`file-`), and the notes worth saying but not refusing (`note-`). */
export const REASON_CODES = [
  'row-empty',
  'row-not-object',
  'row-field-count',
  'row-too-many-fields',
  'row-cell-too-long',
  'row-value-too-long',
  'row-too-many-values',
  'row-unknown-reference',
  'field-required',
  'field-not-text',
  'field-too-long',
  'field-choice',
  'field-one-or-zero',
  'field-true-false',
  'field-date',
  'field-calendar-date',
  'field-timestamp',
  'field-time',
  'field-time-zone',
  'field-quiet-hours',
  'field-fcm-project',
  'field-url',
  'field-invalid',
  'file-format',
  'file-json-collection',
  'file-unreadable',
  'file-collection-unknown',
  'file-empty',
  'file-header-missing',
  'file-header-row',
  'file-too-many-rows',
  'file-not-csv',
  'file-not-json',
  'file-json-shape',
  'file-json-not-array',
  'file-not-written',
  'note-columns-ignored',
  'note-keys-ignored',
  'note-bidi',
] as const;

export type ReasonCode = (typeof REASON_CODES)[number];

/** Numbers, names and short lists; `value` is always masked already (maskedValue). */
export type ReasonParams = Readonly<Record<string, string | number | readonly string[]>>;

export interface Reason {
  readonly code: ReasonCode;
  readonly params: ReasonParams;
}

/** Why a receiver URL is refused (src/shared/event-receiver-url.ts), as `field-url`'s `refusal`. */
export const URL_REFUSALS = ['empty', 'too_long', 'not_absolute', 'not_https', 'credentials'] as const;

/**
 * A tagged template that joins a reason's words and its values: plain text
 * for the English reports, markup with each value isolated for the console.
 */
export type Words<T> = (strings: TemplateStringsArray, ...values: readonly (string | number)[]) => T;

export const plainWords: Words<string> = (strings, ...values) =>
  strings.reduce((text, part, i) => text + part + (i < values.length ? String(values[i]) : ''), '');

const n = (value: number): string => value.toLocaleString('en-US');
const num = (params: ReasonParams, name: string): number => {
  const value = params[name];
  return typeof value === 'number' ? value : Number(value);
};
const str = (params: ReasonParams, name: string): string => {
  const value = params[name];
  return Array.isArray(value) ? value.join(', ') : String(value ?? '');
};

const URL_ENGLISH: Readonly<Record<(typeof URL_REFUSALS)[number], string>> = {
  empty: 'is empty.',
  too_long: 'is longer than 2048 characters.',
  not_absolute: 'is not an absolute URL.',
  not_https: 'must be https:// (http:// only with EVENTS_ALLOW_HTTP=true).',
  credentials: 'must not carry a user name or password.',
};

/** The English words of each reason, as the import has always printed them (test/import/import.test.ts pins them). */
export function englishReason<T>(reason: Reason, w: Words<T>): T {
  const p = reason.params;
  const field = str(p, 'field');
  const file = str(p, 'file');
  switch (reason.code) {
    case 'row-empty':
      return w`is empty.`;
    case 'row-not-object':
      return w`${str(p, 'collection')}[${num(p, 'index')}] is not an object.`;
    case 'row-field-count':
      return w`has ${num(p, 'count')} fields; the header has ${num(p, 'expected')}.`;
    case 'row-too-many-fields':
      return w`has more than ${num(p, 'max')} fields.`;
    case 'row-cell-too-long':
      return w`has a field longer than ${n(num(p, 'max'))} characters.`;
    case 'row-value-too-long':
      return w`has a value longer than ${n(num(p, 'max'))} characters.`;
    case 'row-too-many-values':
      return w`has more than ${n(num(p, 'max'))} values inside its fields.`;
    case 'row-unknown-reference':
      return w`${field} names a ${str(p, 'noun')} that is neither stored nor in this import (${str(p, 'key')}).`;
    case 'field-required':
      return w`${field} is required.`;
    case 'field-not-text':
      return w`${field} must be a string.`;
    case 'field-too-long':
      return w`${field} must be at most ${num(p, 'max')} characters.`;
    case 'field-choice':
      return w`${field} must be one of ${str(p, 'choices')}.`;
    case 'field-one-or-zero':
      return w`${field} must be "1" or "0".`;
    case 'field-true-false':
      return w`${field} must be true or false.`;
    case 'field-date':
      return w`${field} must be an ISO 8601 date (YYYY-MM-DD).`;
    case 'field-calendar-date':
      return w`${field} is not a calendar date.`;
    case 'field-timestamp':
      return w`${field} must be an ISO 8601 timestamp.`;
    case 'field-time':
      return w`${field} is not a valid time.`;
    case 'field-time-zone':
      return w`${field} must be an IANA time zone name, such as Asia/Riyadh.`;
    case 'field-quiet-hours':
      return w`${field} must be ${QUIET_HOURS_SYNTAX}.`;
    case 'field-fcm-project':
      return w`${field} must name an FCM project configured in FCM_PROJECTS, or default.`;
    case 'field-url':
      return w`${field} ${URL_ENGLISH[str(p, 'refusal') as keyof typeof URL_ENGLISH] ?? 'is not a receiver URL.'}`;
    case 'field-invalid':
      return field === '' ? w`${str(p, 'detail')}` : w`${field} ${str(p, 'detail')}`;
    case 'file-format':
      return w`${file}: import reads .csv files, one collection each (schools.csv, students.csv, devices.csv, notes.csv, absences.csv), or .json documents.`;
    case 'file-json-collection':
      return w`${file}: a JSON document names its collections itself; --collection is for CSV files.`;
    case 'file-unreadable':
      return w`${file} cannot be read: ${str(p, 'detail')}.`;
    case 'file-collection-unknown':
      return w`${file}: cannot tell which collection this CSV file holds: name it after its collection (schools.csv, students.csv, devices.csv, notes.csv or absences.csv), give its fields as the header row, or give --collection NAME before it.`;
    case 'file-empty':
      return w`${file} is empty: it needs a header row naming the fields.`;
    case 'file-header-missing':
      return w`${file}: the header row lacks ${str(p, 'missing')} (the fields of ${str(p, 'collection')} are ${str(p, 'fields')}).`;
    case 'file-header-row':
      return w`${file}: the header row ${englishReason({ code: p.problem as ReasonCode, params: p }, plainWords)}`;
    case 'file-too-many-rows':
      return w`${file} holds more than ${n(num(p, 'max'))} rows, the most one import takes: split it into smaller files.`;
    case 'file-not-csv':
      return w`${file} is not valid CSV: ${str(p, 'detail')} (line ${num(p, 'line')})`;
    case 'file-not-json':
      return w`${file} is not valid JSON: ${str(p, 'detail')} (near line ${num(p, 'line')})`;
    case 'file-json-shape':
      return w`${file} must hold one JSON object with the collections (schools, students, ...) as arrays.`;
    case 'file-json-not-array':
      return w`${file}: ${str(p, 'collection')} must be an array of records.`;
    case 'file-not-written':
      return w`${file} was not written: ${str(p, 'detail')}`;
    case 'note-columns-ignored':
      return num(p, 'more') > 0
        ? w`${file}: columns ignored (not fields of ${str(p, 'collection')}): ${str(p, 'names')} and ${num(p, 'more')} more`
        : w`${file}: columns ignored (not fields of ${str(p, 'collection')}): ${str(p, 'names')}`;
    case 'note-keys-ignored':
      return num(p, 'more') > 0
        ? w`${file}: top-level keys ignored: ${str(p, 'names')} and ${num(p, 'more')} more`
        : w`${file}: top-level keys ignored: ${str(p, 'names')}`;
    case 'note-bidi':
      return w`${file}: ${num(p, 'count')} ${num(p, 'count') === 1 ? 'record holds' : 'records hold'} bidirectional control characters (U+202A to U+202E, U+2066 to U+2069, U+200E, U+200F, U+061C), which can reverse how the text around them reads; the first: ${str(p, 'collection')}, line ${num(p, 'line')}. They are imported as they are and shown isolated.`;
  }
}

/** The reason as the English reports print it. */
export const reasonText = (reason: Reason): string => englishReason(reason, plainWords);

/** A rejected row's parts: its code and parameters, and the English text the reports keep in `reason`. */
export function rowReason(code: ReasonCode, params: ReasonParams = {}): Reason & { readonly reason: string } {
  return { code, params, reason: reasonText({ code, params }) };
}

/**
 * Values of these fields are shown as given: codes, dates and ids chosen by
 * the school. Any other field's value (a child's name, a note's text, an
 * absence's reason, a push token) may be personal data, and is masked.
 */
const SHOWN_FIELDS = new Set([
  'id',
  'school',
  'student',
  'deviceId',
  'classId',
  'active',
  'platform',
  'type',
  'state',
  'date',
  'from',
  'to',
  'timeZone',
  'quietHours',
  'fcmProject',
]);

/** The most characters of a value a reason carries. */
const SHOWN_CHARS = 40;

/**
 * A rejected value as a reason may carry it: in full (up to 40 characters)
 * for the fields above; otherwise its first character and its length, a
 * phone-like value with all but its last three digits hidden.
 */
export function maskedValue(field: string, value: unknown): string | null {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return null;
  const text = String(value);
  const chars = [...text];
  if (SHOWN_FIELDS.has(field)) return chars.length > SHOWN_CHARS ? `${chars.slice(0, SHOWN_CHARS).join('')}…` : text;
  if (chars.length === 0) return '';
  // Mostly digits: a phone number, shown as the logs show one.
  if (/^[\s+()\-'.\d]{7,}$/.test(text) && /\d{3}/.test(text)) return maskPhone(text.slice(0, 64));
  return `${chars[0]}… (${chars.length})`;
}

interface Pattern {
  readonly match: RegExp;
  readonly reason: (m: RegExpExecArray) => { code: ReasonCode; params?: ReasonParams };
}

const URL_PROBLEM = Object.entries(URL_ENGLISH);

// The store's field rules say their problem in English (src/store/collections/fields.ts, pinned in
// test/import/import.test.ts); these give each its code. One they do not know is `field-invalid`, its English kept.
const FIELD_PATTERNS: readonly Pattern[] = [
  { match: /^is required\.$/, reason: () => ({ code: 'field-required' }) },
  { match: /^must be a string\.$/, reason: () => ({ code: 'field-not-text' }) },
  {
    match: /^must be at most (\d+) characters\.$/,
    reason: (m) => ({ code: 'field-too-long', params: { max: Number(m[1]) } }),
  },
  { match: /^must be "1" or "0"\.$/, reason: () => ({ code: 'field-one-or-zero' }) },
  {
    match: /^must be one of (.{1,500})\.$/,
    reason: (m) => ({ code: 'field-choice', params: { choices: (m[1] ?? '').split(', ').slice(0, 20) } }),
  },
  { match: /^must be true or false\.$/, reason: () => ({ code: 'field-true-false' }) },
  { match: /^must be an ISO 8601 date \(YYYY-MM-DD\)\.$/, reason: () => ({ code: 'field-date' }) },
  { match: /^is not a calendar date\.$/, reason: () => ({ code: 'field-calendar-date' }) },
  { match: /^must be an ISO 8601 timestamp\.$/, reason: () => ({ code: 'field-timestamp' }) },
  { match: /^is not a valid time\.$/, reason: () => ({ code: 'field-time' }) },
  { match: /^must be an IANA time zone name/, reason: () => ({ code: 'field-time-zone' }) },
  { match: /^must be HH:MM-HH:MM/, reason: () => ({ code: 'field-quiet-hours' }) },
  { match: /^must name an FCM project/, reason: () => ({ code: 'field-fcm-project' }) },
];

/**
 * The code of a store check's problem (`active must be "1" or "0".`), with
 * the field it names and the value the row gave it, masked (maskedValue).
 */
export function fieldReason(
  problem: string,
  record: Readonly<Record<string, unknown>>,
): Reason & { readonly reason: string } {
  if (problem === 'is empty.') return rowReason('row-empty');
  const space = problem.indexOf(' ');
  const field = space > 0 ? problem.slice(0, space) : '';
  const said = problem.slice(space + 1);
  const value = maskedValue(field, record[field.split('.')[0] ?? '']);
  const withValue = (params: ReasonParams): ReasonParams => ({
    field,
    ...params,
    ...(value === null ? {} : { value }),
  });
  const make = (code: ReasonCode, params: ReasonParams = {}) => {
    const built = rowReason(code, withValue(params));
    // Kept as the store said it, should the words of a known code ever differ from the store's.
    return built.reason === problem ? built : { ...built, reason: problem };
  };
  if (field === '' || /^[^A-Za-z]/.test(field))
    return { code: 'field-invalid', params: { field: '', detail: problem.slice(0, 300) }, reason: problem };
  if (field === 'eventsUrl') {
    const refusal = URL_PROBLEM.find(([, text]) => text === said)?.[0];
    if (refusal !== undefined) return make('field-url', { refusal });
  }
  for (const pattern of FIELD_PATTERNS) {
    const m = pattern.match.exec(said);
    if (m !== null) {
      const { code, params } = pattern.reason(m);
      return make(code, params);
    }
  }
  return make('field-invalid', { detail: said.slice(0, 300) });
}
