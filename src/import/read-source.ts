import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { collectionOfCsv } from './format';
import { readCsv } from './read-csv';
import { readJson } from './read-json';
import { SourceError, type Source } from './source';

/** Reads a `<collection>.csv` file or a JSON document. */
export async function readSource(file: string): Promise<Source> {
  const name = path.basename(file);
  const extension = path.extname(name).toLowerCase();
  if (extension !== '.csv' && extension !== '.json') {
    throw new SourceError(
      `${file}: import reads .csv files named after their collection (schools.csv, students.csv, devices.csv, notes.csv, absences.csv) or one .json document.`,
    );
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new SourceError(
      `${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`,
    );
  }
  if (extension === '.json') return readJson(file, text);
  const collection = collectionOfCsv(name);
  if (collection === null) {
    throw new SourceError(
      `${file}: a CSV file must be named after its collection: schools.csv, students.csv, devices.csv, notes.csv or absences.csv.`,
    );
  }
  return readCsv(file, text, collection);
}
