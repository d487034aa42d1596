// One CSV file of one collection: a header row naming the fields, then one
// record per row. Cells are kept as written, but for the quote the export
// puts before a formula-looking one; an empty cell clears an optional field,
// and a column left out keeps what is stored.
//
// The file is read as a stream, a chunk at a time, by a small RFC 4180 reader
// of our own rather than csv-parse: csv-parse builds a whole record before it
// can be looked at, so a single row of millions of empty cells (`,,,,`) costs
// gigabytes, and it cannot stop at a row count. Here a record's fields and a
// cell's characters are bounded as they arrive (MAX_FIELDS, MAX_CELL_CHARS: the
// row is refused and skipped), the records by the file's row limit (the file
// is refused), and the refused rows by a count past the listed ones
// (docs/console.md#import-limits).
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { fromSpreadsheetSafe } from '../shared/spreadsheet-cell';
import type { DataSetCollection } from '../store';
import { FIELDS, REQUIRED_FIELDS } from './format';
import {
  MAX_CELL_CHARS,
  MAX_FIELDS,
  READ_YIELD_EVERY,
  RefusalList,
  yieldToEventLoop,
  type ReadLimits,
} from './read-limits';
import { reasonText, rowReason, type Reason } from './reasons';
import { SourceError, sourceError, type Source, type SourceRow } from './source';

/** One record as read: its cells, the line it starts on, and why it cannot be used (null when it can). */
interface CsvRecord {
  readonly cells: readonly string[];
  readonly line: number;
  readonly problem: (Reason & { readonly reason: string }) | null;
}

/**
 * Reads `text` chunk by chunk and hands over each record as it ends. Blank
 * lines are skipped; a record ends at LF, CRLF or CR outside quotes; `""`
 * inside quotes is one quote. Throws SourceError for a quote out of place or
 * never closed (the file is not CSV).
 */
class CsvReader {
  private line = 1;
  private start = 1;
  private cells: string[] = [];
  private cell = '';
  private cellChars = 0;
  private quoted = false;
  // Inside quotes; `afterQuote`: a quote seen inside quotes, either the end of them or the first of `""`.
  private inQuotes = false;
  private afterQuote = false;
  private lastWasCr = false;
  private fieldCount = 0;
  private problem: CsvRecord['problem'] = null;
  private empty = true;

  constructor(private readonly onRecord: (record: CsvRecord) => void) {}

  write(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.lastWasCr) {
        this.lastWasCr = false;
        // The LF of a CRLF outside quotes: the record ended at the CR already.
        if (c === LF) continue;
      }
      if (this.inQuotes) {
        if (this.afterQuote) {
          this.afterQuote = false;
          if (c === QUOTE) {
            this.append('"');
            continue;
          }
          this.inQuotes = false;
          // Falls through to read `c` outside quotes: only a delimiter or a line end may follow a closing quote.
          if (c !== COMMA && c !== LF && c !== CR)
            throw this.invalid(`a closing quote is followed by a character other than a comma or a line end`);
        } else {
          if (c === QUOTE) this.afterQuote = true;
          else {
            if (c === LF) this.line++;
            else if (c === CR && text.charCodeAt(i + 1) !== LF) this.line++;
            this.append(text[i]);
          }
          continue;
        }
      }
      if (c === COMMA) {
        this.empty = false;
        this.endCell();
      } else if (c === LF || c === CR) {
        if (c === CR) this.lastWasCr = true;
        this.endRecord();
        this.line++;
        this.start = this.line;
      } else if (c === QUOTE) {
        if (this.cellChars > 0 || this.quoted)
          throw this.invalid('a quote inside a field that does not start with one');
        this.empty = false;
        this.quoted = true;
        this.inQuotes = true;
      } else {
        this.empty = false;
        this.append(text[i]);
      }
    }
  }

  end(): void {
    if (this.inQuotes && !this.afterQuote) throw this.invalid('Quote Not Closed: a quoted field never ends');
    this.inQuotes = false;
    this.afterQuote = false;
    this.endRecord();
  }

  private append(char: string): void {
    this.cellChars++;
    if (this.problem !== null) return;
    if (this.cellChars > MAX_CELL_CHARS) {
      this.problem = rowReason('row-cell-too-long', { max: MAX_CELL_CHARS });
      this.cell = '';
      this.cells = [];
      return;
    }
    this.cell += char;
  }

  private endCell(): void {
    this.fieldCount++;
    if (this.problem === null && this.fieldCount > MAX_FIELDS) {
      this.problem = rowReason('row-too-many-fields', { max: MAX_FIELDS });
      this.cells = [];
    }
    // Flattened: a cell built a character at a time is a rope V8 would otherwise keep in pieces.
    if (this.problem === null) this.cells.push(this.cell.length > 16 ? flat(this.cell) : this.cell);
    this.cell = '';
    this.cellChars = 0;
    this.quoted = false;
  }

  private endRecord(): void {
    if (this.empty && this.fieldCount === 0 && this.cellChars === 0 && !this.quoted) return;
    this.endCell();
    const record: CsvRecord = { cells: this.cells, line: this.start, problem: this.problem };
    this.cells = [];
    this.fieldCount = 0;
    this.problem = null;
    this.empty = true;
    this.onRecord(record);
  }

  /** The file's name is filled in by readCsv, which knows it. */
  private invalid(why: string): SourceError {
    return sourceError('file-not-csv', { file: '', detail: why, line: this.line });
  }
}

const COMMA = 0x2c;
const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

function flat(text: string): string {
  // Number() of a non-number string is cheap and forces V8 to flatten the rope in place.
  void Number(text);
  return text;
}

/**
 * Reads a CSV file of one collection: `collectionOf` is told the header row's
 * cells and returns the collection (or throws SourceError when it cannot say).
 */
export async function readCsv(
  file: string,
  collectionOf: (header: readonly string[]) => DataSetCollection,
  limits: ReadLimits,
): Promise<Source> {
  let collection: DataSetCollection | null = null;
  let columns: (string | null)[] = [];
  const rows: SourceRow[] = [];
  const refused = new RefusalList();
  const notes: Reason[] = [];
  let records = 0;

  const onRecord = ({ cells, line, problem }: CsvRecord) => {
    if (collection === null) {
      if (problem !== null) throw sourceError('file-header-row', { ...problem.params, file, problem: problem.code });
      collection = collectionOf(cells);
      columns = header(file, cells, collection, notes);
      return;
    }
    if (++records > limits.maxRows) throw tooManyRows(file, limits.maxRows);
    if (problem !== null) {
      refused.add({ collection, line, ...problem });
      return;
    }
    if (cells.length !== columns.length) {
      refused.add({
        collection,
        line,
        ...rowReason('row-field-count', { count: cells.length, expected: columns.length }),
      });
      return;
    }
    const fields: Record<string, string> = {};
    columns.forEach((field, i) => {
      // The quote the export puts before a cell a spreadsheet would run is not part of the value.
      if (field !== null) fields[field] = fromSpreadsheetSafe(cells[i] ?? '');
    });
    rows.push({ line, record: fields });
  };

  const reader = new CsvReader(onRecord);
  const decoder = new StringDecoder('utf8');
  let first = true;
  let sinceYield = 0;
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>) {
      let text = decoder.write(chunk);
      if (first && text.length > 0) {
        first = false;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      reader.write(text);
      sinceYield += chunk.length;
      // A chunk is read in well under a millisecond; turns are still given up now and then in case reads come from a cache.
      if (sinceYield >= READ_YIELD_EVERY * 16) {
        sinceYield = 0;
        await yieldToEventLoop();
      }
    }
    reader.write(decoder.end());
    reader.end();
  } catch (error) {
    if (error instanceof SourceError) {
      if (error.reason.code !== 'file-not-csv' || error.reason.params.file !== '') throw error;
      throw sourceError('file-not-csv', { ...error.reason.params, file });
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined) throw sourceError('file-unreadable', { file, detail: code });
    throw error;
  }
  if (collection === null) throw sourceError('file-empty', { file });
  const found: DataSetCollection = collection;
  const listed = refused.listed();
  const unlisted = refused.count(found) - listed.length;
  return {
    file,
    rows: { [found]: rows },
    unreadable: listed,
    ...(unlisted > 0 ? { unlisted: { [found]: unlisted } } : {}),
    notes: notes.map(reasonText),
    noteReasons: notes,
  };
}

/** The header's columns, each the field it names or null (ignored); throws SourceError when a required one is missing. */
function header(
  file: string,
  cells: readonly string[],
  collection: DataSetCollection,
  notes: Reason[],
): (string | null)[] {
  // Field names match case-insensitively: spreadsheets like to capitalise.
  const known = new Map(FIELDS[collection].map((field) => [field.toLowerCase(), field]));
  const columns = cells.map((name) => known.get(name.trim().toLowerCase()) ?? null);
  const missing = REQUIRED_FIELDS[collection].filter((field) => !columns.includes(field));
  if (missing.length > 0) {
    throw sourceError('file-header-missing', { file, missing, collection, fields: FIELDS[collection] });
  }
  const ignored = cells.filter((_, i) => columns[i] === null);
  if (ignored.length > 0) {
    const names = ignored.slice(0, 20).map((name) => (name.length > 40 ? `${name.slice(0, 40)}...` : name));
    notes.push({
      code: 'note-columns-ignored',
      params: { file, collection, names, more: ignored.length - names.length },
    });
  }
  return columns;
}

export function tooManyRows(file: string, maxRows: number): SourceError {
  return sourceError('file-too-many-rows', { file, max: maxRows });
}
