// One JSON document in the import format (docs/design.md#import-format): an object whose
// `schools`, `students`, `devices`, `notes` and `absences` are arrays of
// records. Other top-level keys are ignored.
//
// Read token by token (jsonc-parser's scanner) with a stack of our own rather
// than JSON.parse: JSON.parse builds the whole document before anything can
// be counted, so 32 MiB of `{},{},...` is ten million objects and the process
// runs out of memory, and a deep `[[[[...` costs a stack as deep. Here only the
// records are built, each record's fields, nesting and values nested in its
// fields (a school's message options) are bounded, the records
// by the file's row limit, and the reading gives the event loop a turn every
// READ_YIELD_EVERY tokens (docs/console.md#import-limits). Tokens also carry
// their lines, so a record's line comes with it.
import { createScanner } from 'jsonc-parser';
import { COLLECTIONS, type DataSetCollection } from '../store';
import { tooManyRows } from './read-csv';
import {
  MAX_CELL_CHARS,
  MAX_FIELDS,
  MAX_JSON_DEPTH,
  MAX_NESTED_VALUES,
  READ_YIELD_EVERY,
  RefusalList,
  yieldToEventLoop,
  type ReadLimits,
} from './read-limits';
import { reasonText, rowReason, type Reason } from './reasons';
import { sourceError, type Source, type SourceRow } from './source';

// jsonc-parser's SyntaxKind and ScanError (const enums, spelled out here).
const OPEN_BRACE = 1;
const CLOSE_BRACE = 2;
const OPEN_BRACKET = 3;
const CLOSE_BRACKET = 4;
const COMMA = 5;
const COLON = 6;
const NULL = 7;
const TRUE = 8;
const FALSE = 9;
const STRING = 10;
const NUMBER = 11;
const LINE_BREAK = 14;
const TRIVIA = 15;
const EOF = 17;
const SCAN_ERRORS = [
  '',
  'a comment never ends',
  'a string never ends',
  'a number ends too soon',
  'an invalid \\u escape',
  'an invalid escape',
  'an invalid character',
];

/** Where a frame sits: the document, a collection's array, one of its records, or something inside a record. */
type Place = 'document' | 'collection' | 'record' | 'inside' | 'ignored';

interface Frame {
  readonly place: Place;
  readonly isArray: boolean;
  /** The value being built: a record and what is inside it; null where nothing is kept. */
  readonly value: Record<string, unknown> | unknown[] | null;
  readonly collection: DataSetCollection | null;
  readonly line: number;
  /** Object: the key whose value comes next. */
  key: string | null;
  /** Items or keys so far. */
  count: number;
  /** What the next token may be. */
  expect: 'first' | 'key' | 'colon' | 'value' | 'next';
  /** A record: why it cannot be used, once known. */
  problem: ReturnType<typeof rowReason> | null;
  /** A record: values so far inside its fields' objects and arrays. */
  nested: number;
}

export async function readJson(file: string, text: string, limits: ReadLimits): Promise<Source> {
  const scanner = createScanner(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, false);
  const rows: Partial<Record<DataSetCollection, SourceRow[]>> = {};
  const refused = new RefusalList();
  const ignored = new Set<string>();
  let ignoredMore = 0;
  let records = 0;
  const stack: Frame[] = [];
  let done = false;
  let tokens = 0;

  const invalid = (why: string) =>
    sourceError('file-not-json', { file, detail: why, line: scanner.getTokenStartLine() + 1 });

  /** A value has begun in the frame on top (or as the document); returns where it goes. */
  const placeOf = (
    parent: Frame | undefined,
    line: number,
    container: boolean,
  ): { place: Place; collection: DataSetCollection | null } => {
    if (parent === undefined) return { place: 'document', collection: null };
    if (parent.place === 'document') {
      const key = parent.key as string;
      const collection = (COLLECTIONS as readonly string[]).includes(key) ? (key as DataSetCollection) : null;
      if (collection === null) {
        if (ignored.size < 20) ignored.add(key.length > 40 ? `${key.slice(0, 40)}...` : key);
        else if (!ignored.has(key)) ignoredMore++;
        return { place: 'ignored', collection: null };
      }
      return { place: 'collection', collection };
    }
    if (parent.place === 'collection') {
      const collection = parent.collection as DataSetCollection;
      if (++records > limits.maxRows) throw tooManyRows(file, limits.maxRows);
      if (!container || parent.value === null) {
        refused.add({ collection, line, ...rowReason('row-not-object', { collection, index: parent.count }) });
        return { place: 'ignored', collection: null };
      }
      return { place: 'record', collection };
    }
    if (parent.place === 'record' || parent.place === 'inside') return { place: 'inside', collection: null };
    return { place: 'ignored', collection: null };
  };

  /** The record a value inside it belongs to, to mark it when a value is over a limit. */
  const recordFrame = (): Frame | undefined => {
    for (let i = stack.length - 1; i >= 0; i--) if (stack[i]?.place === 'record') return stack[i];
    return undefined;
  };

  /** A finished value is put where it belongs in the frame on top. */
  const put = (value: unknown) => {
    const parent = stack[stack.length - 1];
    if (parent === undefined) {
      done = true;
      return;
    }
    parent.count++;
    parent.expect = 'next';
    if (parent.place === 'record' && parent.count > MAX_FIELDS && parent.problem === null)
      parent.problem = rowReason('row-too-many-fields', { max: MAX_FIELDS });
    if (parent.value === null) return;
    // A value inside a field's object or array: kept up to the bound, so that one record cannot fill the memory.
    if (parent.place === 'inside') {
      const record = recordFrame();
      if (record === undefined || ++record.nested > MAX_NESTED_VALUES) {
        if (record !== undefined && record.problem === null)
          record.problem = rowReason('row-too-many-values', { max: MAX_NESTED_VALUES });
        return;
      }
    }
    if (parent.isArray) (parent.value as unknown[]).push(value);
    else (parent.value as Record<string, unknown>)[parent.key as string] = value;
  };

  const begin = (isArray: boolean) => {
    const line = scanner.getTokenStartLine() + 1;
    const parent = stack[stack.length - 1];
    if (stack.length >= MAX_JSON_DEPTH) throw invalid(`it nests deeper than ${MAX_JSON_DEPTH} levels`);
    const { place, collection } = placeOf(parent, line, !isArray);
    if (place === 'document' && isArray) throw sourceError('file-json-shape', { file });
    if (place === 'collection' && !isArray)
      throw sourceError('file-json-not-array', { file, collection: collection as string });
    if (place === 'collection') rows[collection as DataSetCollection] = [];
    const value = place === 'record' || place === 'inside' ? (isArray ? [] : {}) : place === 'collection' ? [] : null;
    if (parent !== undefined && place === 'inside') put(value);
    stack.push({
      place,
      isArray,
      value,
      collection,
      line,
      key: null,
      count: 0,
      expect: 'first',
      problem: null,
      nested: 0,
    });
  };

  const end = () => {
    const frame = stack.pop() as Frame;
    if (frame.place === 'record') {
      const collection = frame.collection as DataSetCollection;
      if (frame.problem !== null) refused.add({ collection, line: frame.line, ...frame.problem });
      else rows[collection]?.push({ line: frame.line, record: frame.value as Record<string, unknown> });
    }
    const parent = stack[stack.length - 1];
    if (parent === undefined) done = true;
    else if (frame.place !== 'inside') {
      parent.count++;
      parent.expect = 'next';
    } else parent.expect = 'next';
  };

  const scalar = (kind: number) => {
    const parent = stack[stack.length - 1];
    if (parent === undefined) throw sourceError('file-json-shape', { file });
    const line = scanner.getTokenStartLine() + 1;
    let value: unknown;
    if (kind === STRING) {
      value = scanner.getTokenValue();
      if ((value as string).length > MAX_CELL_CHARS) {
        const record = recordFrame();
        if (record !== undefined && record.problem === null)
          record.problem = rowReason('row-value-too-long', { max: MAX_CELL_CHARS });
        value = '';
      }
    } else if (kind === NUMBER) value = Number(scanner.getTokenValue());
    else value = kind === NULL ? null : kind === TRUE;
    if (parent.place === 'document') {
      const key = parent.key as string;
      if (value !== null && (COLLECTIONS as readonly string[]).includes(key))
        throw sourceError('file-json-not-array', { file, collection: key });
      placeOf(parent, line, false);
    } else if (parent.place === 'collection') {
      placeOf(parent, line, false);
      parent.count++;
      parent.expect = 'next';
      return;
    }
    put(value);
  };

  for (;;) {
    const kind: number = scanner.scan();
    if (kind === TRIVIA || kind === LINE_BREAK) continue;
    const error: number = scanner.getTokenError();
    if (error !== 0) throw invalid(SCAN_ERRORS[error] ?? 'an invalid token');
    if (++tokens % READ_YIELD_EVERY === 0) await yieldToEventLoop();
    if (kind === EOF) {
      if (!done) throw invalid(stack.length === 0 ? 'the document is empty' : 'the document ends too soon');
      break;
    }
    if (done) throw invalid('more follows the document');
    const top = stack[stack.length - 1];
    const state = top?.expect ?? 'value';
    if (top !== undefined && !top.isArray && (state === 'first' || state === 'key')) {
      if (kind === CLOSE_BRACE && state === 'first') end();
      else if (kind === STRING) {
        top.key = scanner.getTokenValue();
        top.expect = 'colon';
      } else throw invalid('a key is expected');
      continue;
    }
    if (state === 'colon') {
      if (kind !== COLON) throw invalid('a colon is expected');
      top.expect = 'value';
      continue;
    }
    if (state === 'next') {
      const frame = top;
      if (kind === COMMA) frame.expect = frame.isArray ? 'value' : 'key';
      else if (kind === (frame.isArray ? CLOSE_BRACKET : CLOSE_BRACE)) end();
      else throw invalid(frame.isArray ? 'a comma or ] is expected' : 'a comma or } is expected');
      continue;
    }
    // A value (or, first in an array, its end).
    if (kind === CLOSE_BRACKET && state === 'first') end();
    else if (kind === OPEN_BRACE) begin(false);
    else if (kind === OPEN_BRACKET) begin(true);
    else if (kind === STRING || kind === NUMBER || kind === NULL || kind === TRUE || kind === FALSE) scalar(kind);
    else throw invalid('a value is expected');
  }

  const listed = refused.listed();
  const unlisted: Partial<Record<DataSetCollection, number>> = {};
  for (const collection of COLLECTIONS) {
    const more = refused.count(collection) - listed.filter((r) => r.collection === collection).length;
    if (more > 0) unlisted[collection] = more;
  }
  const noteReasons: Reason[] =
    ignored.size > 0 ? [{ code: 'note-keys-ignored', params: { file, names: [...ignored], more: ignoredMore } }] : [];
  return {
    file,
    rows,
    unreadable: listed,
    ...(Object.keys(unlisted).length > 0 ? { unlisted } : {}),
    notes: noteReasons.map(reasonText),
    noteReasons,
  };
}
