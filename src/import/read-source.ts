import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { DataSetCollection } from '../store';
import { collectionOfCsv, collectionOfHeader } from './format';
import { readCsv } from './read-csv';
import { readJson } from './read-json';
import { NO_READ_LIMITS, type ReadLimits } from './read-limits';
import { SourceError, type Source } from './source';

/**
 * Reads a CSV file of one collection (`collection` when given, else the one
 * its name says, `students.csv`, else the one its header row names) or a JSON
 * document, within `limits` (docs/console.md#import-limits).
 */
export async function readSource(
  file: string,
  collection?: DataSetCollection,
  limits: ReadLimits = NO_READ_LIMITS,
): Promise<Source> {
  const name = path.basename(file);
  const extension = path.extname(name).toLowerCase();
  if (extension !== '.csv' && extension !== '.json') {
    throw new SourceError(
      `${file}: import reads .csv files, one collection each (schools.csv, students.csv, devices.csv, notes.csv, absences.csv), or .json documents.`,
    );
  }
  if (extension === '.json') {
    if (collection !== undefined)
      throw new SourceError(`${file}: a JSON document names its collections itself; --collection is for CSV files.`);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new SourceError(
        `${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`,
      );
    }
    return readJson(file, text, limits);
  }
  return readCsv(
    file,
    (header) => {
      const found = collection ?? collectionOfCsv(name) ?? collectionOfHeader(header);
      if (found === null) {
        throw new SourceError(
          `${file}: cannot tell which collection this CSV file holds: name it after its collection (schools.csv, students.csv, devices.csv, notes.csv or absences.csv), give its fields as the header row, or give --collection NAME before it.`,
        );
      }
      return found;
    },
    limits,
  );
}
