import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { hasBidiControl } from '../shared/bidi';
import type { DataSetCollection } from '../store';
import { collectionOfCsv, collectionOfHeader } from './format';
import { readCsv } from './read-csv';
import { readJson } from './read-json';
import { NO_READ_LIMITS, type ReadLimits } from './read-limits';
import { reasonText, type Reason } from './reasons';
import { sourceError, type Source } from './source';

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
  const source = await readEither(file, collection, limits);
  const bidi = bidiNote(source);
  if (bidi === null) return source;
  return {
    ...source,
    notes: [...source.notes, reasonText(bidi)],
    ...(source.noteReasons === undefined ? {} : { noteReasons: [...source.noteReasons, bidi] }),
  };
}

/**
 * A note naming the records whose text holds bidirectional formatting
 * characters (src/shared/bidi.ts): imported as they are, but shown isolated,
 * and worth a look at the source.
 */
function bidiNote(source: Source): Reason | null {
  let count = 0;
  let first: { collection: string; line: number } | null = null;
  for (const [collection, rows] of Object.entries(source.rows))
    for (const row of rows ?? [])
      if (Object.values(row.record).some((value) => typeof value === 'string' && hasBidiControl(value))) {
        count++;
        if (first === null || row.line < first.line) first = { collection, line: row.line };
      }
  if (first === null) return null;
  return { code: 'note-bidi', params: { file: source.file, count, collection: first.collection, line: first.line } };
}

async function readEither(
  file: string,
  collection: DataSetCollection | undefined,
  limits: ReadLimits,
): Promise<Source> {
  const name = path.basename(file);
  const extension = path.extname(name).toLowerCase();
  if (extension !== '.csv' && extension !== '.json') {
    throw sourceError('file-format', { file });
  }
  if (extension === '.json') {
    if (collection !== undefined) throw sourceError('file-json-collection', { file });
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw sourceError('file-unreadable', {
        file,
        detail: (error as NodeJS.ErrnoException).code ?? (error as Error).message,
      });
    }
    return readJson(file, text, limits);
  }
  return readCsv(
    file,
    (header) => {
      const found = collection ?? collectionOfCsv(name) ?? collectionOfHeader(header);
      if (found === null) {
        throw sourceError('file-collection-unknown', { file });
      }
      return found;
    },
    limits,
  );
}
