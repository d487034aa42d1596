import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { DataSetCollection } from '../store';
import { collectionOfCsv, collectionOfHeader } from './format';
import { csvHeader, readCsv } from './read-csv';
import { readJson } from './read-json';
import { SourceError, type Source } from './source';

/**
 * Reads a CSV file of one collection (`collection` when given, else the one
 * its name says, `students.csv`, else the one its header row names) or a JSON
 * document.
 */
export async function readSource(file: string, collection?: DataSetCollection): Promise<Source> {
  const name = path.basename(file);
  const extension = path.extname(name).toLowerCase();
  if (extension !== '.csv' && extension !== '.json') {
    throw new SourceError(
      `${file}: import reads .csv files, one collection each (schools.csv, students.csv, devices.csv, notes.csv, absences.csv), or .json documents.`,
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
  if (extension === '.json') {
    if (collection !== undefined)
      throw new SourceError(`${file}: a JSON document names its collections itself; --collection is for CSV files.`);
    return readJson(file, text);
  }
  const header = csvHeader(text);
  const found = collection ?? collectionOfCsv(name) ?? (header === null ? null : collectionOfHeader(header));
  if (found === null) {
    throw new SourceError(
      `${file}: cannot tell which collection this CSV file holds: name it after its collection (schools.csv, students.csv, devices.csv, notes.csv or absences.csv), give its fields as the header row, or give --collection NAME before it.`,
    );
  }
  return readCsv(file, text, found);
}
