// One JSON document in the import format (docs/design.md#import-format): an object whose
// `schools`, `students`, `devices`, `notes` and `absences` are arrays of
// records. Other top-level keys are ignored. Line numbers come from a
// second, position-aware pass (jsonc-parser), since JSON.parse keeps none.
import { visit } from 'jsonc-parser';
import { COLLECTIONS, type DataSetCollection } from '../store';
import { SourceError, type Source, type SourceRow } from './source';

export function readJson(file: string, text: string): Source {
  let document: unknown;
  try {
    document = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    throw new SourceError(`${file} is not valid JSON: ${(error as Error).message}${lineOfSyntaxError(text)}`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new SourceError(`${file} must hold one JSON object with the collections (schools, students, ...) as arrays.`);
  }
  const lines = recordLines(text);
  const rows: Partial<Record<DataSetCollection, SourceRow[]>> = {};
  const unreadable: Source['unreadable'][number][] = [];
  const collections = COLLECTIONS;
  for (const collection of collections) {
    const items: unknown = (document as Record<string, unknown>)[collection];
    if (items === undefined || items === null) continue;
    if (!Array.isArray(items)) throw new SourceError(`${file}: ${collection} must be an array of records.`);
    const list: SourceRow[] = (rows[collection] = []);
    items.forEach((item: unknown, index) => {
      const line = lines.get(`${collection}/${index}`) ?? 0;
      if (typeof item !== 'object' || item === null || Array.isArray(item)) {
        unreadable.push({ collection, line, reason: `${collection}[${index}] is not an object.` });
        return;
      }
      list.push({ line, record: item as Record<string, unknown> });
    });
  }
  const ignored = Object.keys(document).filter((key) => !collections.includes(key as DataSetCollection));
  const notes = ignored.length > 0 ? [`${file}: top-level keys ignored: ${ignored.join(', ')}`] : [];
  return { file, rows, unreadable, notes };
}

/** `collection/index` → the 1-based line where that record starts. */
function recordLines(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  const note = (startLine: number, path: () => (string | number)[]) => {
    const at = path();
    if (at.length === 2 && typeof at[0] === 'string' && typeof at[1] === 'number')
      lines.set(`${at[0]}/${at[1]}`, startLine + 1);
  };
  visit(text, {
    onObjectBegin: (_offset, _length, startLine, _startCharacter, path) => note(startLine, path),
    onArrayBegin: (_offset, _length, startLine, _startCharacter, path) => note(startLine, path),
    onLiteralValue: (_value, _offset, _length, startLine, _startCharacter, path) => note(startLine, path),
  });
  return lines;
}

function lineOfSyntaxError(text: string): string {
  const first: { line?: number } = {};
  visit(text, {
    onError: (_error, _offset, _length, startLine) => {
      first.line ??= startLine + 1;
    },
  });
  return first.line === undefined ? '' : ` (near line ${first.line})`;
}
