// Phase one of an import: every row of every file checked against the
// store's rules and against what it refers to (a student's school, a note's
// or absence's student), stored already or earlier in this import. Nothing
// is written here, so that --strict can refuse the whole import.
import { COLLECTIONS, checkRecord, type DataSet, type DataSetCollection, type ImportStore } from '../store';
import type { Source, SourceRow } from './source';

export interface Rejection {
  readonly collection: DataSetCollection;
  readonly line: number;
  readonly reason: string;
}

export interface CheckedSource {
  readonly file: string;
  /** The records to write, by collection. */
  readonly dataSet: DataSet;
  /** Rows accepted per collection (a key repeated in the file counts each time). */
  readonly accepted: Partial<Record<DataSetCollection, number>>;
  readonly rejected: readonly Rejection[];
  readonly notes: readonly string[];
}

type ReferencedCollection = 'schools' | 'students';

export interface SourceChecker {
  check(source: Source, onRow?: () => void): Promise<CheckedSource>;
}

export function createSourceChecker(store: Pick<ImportStore, 'existingKeys'>, now: string): SourceChecker {
  // Keys accepted earlier in this import, and answers the store already gave.
  const imported: Record<ReferencedCollection, Set<string>> = { schools: new Set(), students: new Set() };
  const stored: Record<ReferencedCollection, Map<string, boolean>> = { schools: new Map(), students: new Map() };

  const known = async (collection: ReferencedCollection, keys: readonly string[]): Promise<(key: string) => boolean> => {
    const ask = [...new Set(keys)].filter((key) => !imported[collection].has(key) && !stored[collection].has(key));
    if (ask.length > 0) {
      const found = await store.existingKeys(collection, ask);
      for (const key of ask) stored[collection].set(key, found.has(key));
    }
    return (key) => imported[collection].has(key) || stored[collection].get(key) === true;
  };

  return {
    async check(source, onRow) {
      const dataSet: Record<string, unknown[]> = {};
      const accepted: Partial<Record<DataSetCollection, number>> = {};
      const rejected: Rejection[] = source.unreadable.map((u) => ({ ...u }));
      for (const collection of COLLECTIONS) {
        const rows: readonly SourceRow[] = source.rows[collection] ?? [];
        if (rows.length === 0) continue;
        const passed: { row: SourceRow; key: string; reference: string | null }[] = [];
        for (const row of rows) {
          onRow?.();
          const result = checkRecord(collection, row.record, now);
          if ('problem' in result) rejected.push({ collection, line: row.line, reason: result.problem });
          else passed.push({ row, key: result.key, reference: result.schoolKey ?? result.studentId });
        }
        const referenced = referencedCollection(collection);
        const isKnown =
          referenced === null
            ? null
            : await known(
                referenced,
                passed.flatMap((p) => (p.reference === null ? [] : [p.reference])),
              );
        const records: unknown[] = [];
        for (const { row, key, reference } of passed) {
          if (isKnown !== null && reference !== null && !isKnown(reference)) {
            const field = collection === 'students' ? 'school' : 'studentId';
            const what = collection === 'students' ? 'school' : 'student';
            rejected.push({ collection, line: row.line, reason: `${field} names a ${what} that is neither stored nor in this import (${reference}).` });
            continue;
          }
          records.push(row.record);
          if (collection === 'schools' || collection === 'students') imported[collection].add(key);
        }
        dataSet[collection] = records;
        accepted[collection] = records.length;
      }
      rejected.sort((a, b) => a.line - b.line);
      return { file: source.file, dataSet: dataSet, accepted, rejected, notes: source.notes };
    },
  };
}

function referencedCollection(collection: DataSetCollection): ReferencedCollection | null {
  if (collection === 'students') return 'schools';
  if (collection === 'notes' || collection === 'absences') return 'students';
  return null;
}
