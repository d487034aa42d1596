// `npm run export`: the whole data set in the import format, so that an
// export imports back to the same store. CSV: one file per collection with
// every field in the header, an empty cell for null, a cell a spreadsheet
// would run as a formula quoted. JSON: one document.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { spreadsheetSafe } from '../shared/spreadsheet-cell';
import { COLLECTIONS, type DataSetCollection, type ImportStore } from '../store';
import { FIELDS } from './format';

export type ExportFormat = 'csv' | 'json';

export const JSON_EXPORT_FILE = 'data.json';

/** Writes the files; returns their paths and how many records each collection had. */
export async function exportDataSet(
  store: Pick<ImportStore, 'readDataSet'>,
  dir: string,
  format: ExportFormat,
): Promise<{ files: string[]; counts: Record<DataSetCollection, number> }> {
  const data = await store.readDataSet();
  await mkdir(dir, { recursive: true });
  const counts = Object.fromEntries(COLLECTIONS.map((c) => [c, data[c].length])) as Record<DataSetCollection, number>;
  if (format === 'json') {
    const file = path.join(dir, JSON_EXPORT_FILE);
    await writeFile(file, `${JSON.stringify(data, null, 1)}\n`);
    return { files: [file], counts };
  }
  const files: string[] = [];
  for (const collection of COLLECTIONS) {
    const file = path.join(dir, `${collection}.csv`);
    const records: readonly Readonly<Record<string, unknown>>[] = data[collection];
    const rows = records.map((record) => FIELDS[collection].map((field) => cell(record[field])));
    await writeFile(file, stringify([FIELDS[collection], ...rows]));
    files.push(file);
  }
  return { files, counts };
}

/** A cell a spreadsheet shows as text, never runs (src/shared/spreadsheet-cell.ts); the import reads it back as the value. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  // A school's message options: their JSON text, which the import reads back.
  return spreadsheetSafe(typeof value === 'object' ? JSON.stringify(value) : String(value));
}
