// One CSV file of one collection: a header row naming the fields, then one
// record per row. Cells are kept as written, but for the quote the export
// puts before a formula-looking one; an empty cell clears an optional field,
// and a column left out keeps what is stored.
import { parse } from 'csv-parse/sync';
import { fromSpreadsheetSafe } from '../shared/spreadsheet-cell';
import type { DataSetCollection } from '../store';
import { FIELDS, REQUIRED_FIELDS } from './format';
import { SourceError, type Source, type SourceRow } from './source';

interface ParsedRecord {
  readonly record: string[];
  readonly info: { readonly lines: number };
}

/** The header row's cells; null when the text is empty or no valid CSV (readCsv then says why). */
export function csvHeader(text: string): string[] | null {
  try {
    const rows: string[][] = parse(text, { bom: true, to: 1, relax_column_count: true, skip_empty_lines: true });
    return rows[0] ?? null;
  } catch {
    return null;
  }
}

export function readCsv(file: string, text: string, collection: DataSetCollection): Source {
  let parsed: ParsedRecord[];
  try {
    parsed = parse(text, {
      bom: true,
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
    }) as unknown as ParsedRecord[];
  } catch (error) {
    throw new SourceError(`${file} is not valid CSV: ${(error as Error).message}`);
  }
  const [header, ...records] = parsed;
  if (header === undefined)
    throw new SourceError(`${file} is empty: it needs a header row (${FIELDS[collection].join(',')}).`);

  // Field names match case-insensitively: spreadsheets like to capitalise.
  const known = new Map(FIELDS[collection].map((field) => [field.toLowerCase(), field]));
  const columns = header.record.map((name) => known.get(name.trim().toLowerCase()) ?? null);
  const missing = REQUIRED_FIELDS[collection].filter((field) => !columns.includes(field));
  if (missing.length > 0) {
    throw new SourceError(
      `${file}: the header row lacks ${missing.join(', ')} (the fields of ${collection} are ${FIELDS[collection].join(', ')}).`,
    );
  }
  const ignored = header.record.filter((_, i) => columns[i] === null);
  const notes =
    ignored.length > 0 ? [`${file}: columns ignored (not fields of ${collection}): ${ignored.join(', ')}`] : [];

  const rows: SourceRow[] = [];
  const unreadable: Source['unreadable'][number][] = [];
  for (const { record, info } of records) {
    // info.lines is where the record ends; a quoted cell may span lines.
    const line = info.lines - record.reduce((n, cell) => n + countNewlines(cell), 0);
    if (record.length !== columns.length) {
      unreadable.push({ collection, line, reason: `has ${record.length} fields; the header has ${columns.length}.` });
      continue;
    }
    const fields: Record<string, string> = {};
    columns.forEach((field, i) => {
      // The quote the export puts before a cell a spreadsheet would run is not part of the value.
      if (field !== null) fields[field] = fromSpreadsheetSafe(record[i] ?? '');
    });
    rows.push({ line, record: fields });
  }
  return { file, rows: { [collection]: rows }, unreadable, notes };
}

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
