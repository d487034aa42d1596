// Phase one of an import: every row of every file checked against the
// store's rules and against what it refers to (a student's school, a note's
// or absence's student: the collections' links, src/store/collections/),
// stored already or earlier in this import. Nothing
// is written here, so that --strict can refuse the whole import.
import {
  COLLECTION_OF,
  COLLECTIONS,
  checkRecord,
  type DataSet,
  type DataSetCollection,
  type ImportStore,
  type RecordReference,
} from '../store';
import { fieldReason, rowReason, type Reason } from './reasons';
import { RefusalList, yieldToEventLoop } from './read-limits';
import type { Source, SourceRow } from './source';

/** A rejected row: its reason as a code and parameters (src/import/reasons.ts) and in English words (`reason`). */
export interface Rejection extends Reason {
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
  /** The first rejected rows by line (LISTED_REJECTIONS_MAX, src/import/read-limits.ts). */
  readonly rejected: readonly Rejection[];
  /** Rows rejected per collection in all, listed or not. */
  readonly rejectedCount: Partial<Record<DataSetCollection, number>>;
  readonly notes: readonly string[];
  readonly noteReasons?: readonly Reason[];
  /** With `foresee`: distinct keys per collection that are new, and that are stored already (a write replaces them). */
  readonly foreseen?: Partial<Record<DataSetCollection, { readonly inserted: number; readonly updated: number }>>;
}

/** Rows checked between two turns of the event loop. */
const YIELD_EVERY = 1000;
/**
 * Keys asked of the store between two turns of the event loop: SQLite answers
 * synchronously, so 200,000 keys asked in one go held the thread for seconds.
 */
const ASK_EVERY = 2000;

export interface SourceChecker {
  check(source: Source, onRow?: () => void): Promise<CheckedSource>;
}

export function createSourceChecker(
  store: Pick<ImportStore, 'existingKeys'>,
  now: string,
  options: { readonly foresee?: boolean; readonly eventsAllowHttp?: boolean } = {},
): SourceChecker {
  // Keys accepted earlier in this import, and answers the store already gave.
  const imported = new Map<DataSetCollection, Set<string>>(COLLECTIONS.map((c) => [c, new Set()]));
  const stored = new Map<DataSetCollection, Map<string, boolean>>(COLLECTIONS.map((c) => [c, new Map()]));
  const importedOf = (collection: DataSetCollection) => imported.get(collection) as Set<string>;
  const storedOf = (collection: DataSetCollection) => stored.get(collection) as Map<string, boolean>;

  // Asks the store only about keys neither imported nor asked about before.
  const learn = async (collection: DataSetCollection, keys: readonly string[]): Promise<void> => {
    const ask = [...new Set(keys)].filter((key) => !importedOf(collection).has(key) && !storedOf(collection).has(key));
    for (let start = 0; start < ask.length; start += ASK_EVERY) {
      const some = ask.slice(start, start + ASK_EVERY);
      const found = await store.existingKeys(collection, some);
      for (const key of some) storedOf(collection).set(key, found.has(key));
      await yieldToEventLoop();
    }
  };
  const isKnown = (reference: RecordReference) =>
    importedOf(reference.collection).has(reference.key) || storedOf(reference.collection).get(reference.key) === true;

  return {
    async check(source, onRow) {
      const dataSet: Record<string, unknown[]> = {};
      const accepted: Partial<Record<DataSetCollection, number>> = {};
      const foreseen: NonNullable<CheckedSource['foreseen']> = {};
      // Only the first rejections are kept, however many rows a file refuses.
      const rejected = new RefusalList<Rejection>();
      for (const u of source.unreadable) rejected.add({ ...u });
      const unlisted = source.unlisted ?? {};
      for (const collection of COLLECTIONS) {
        const rows: readonly SourceRow[] = source.rows[collection] ?? [];
        if (rows.length === 0) continue;
        const passed: { row: SourceRow; key: string; references: readonly RecordReference[] }[] = [];
        for (const [index, row] of rows.entries()) {
          onRow?.();
          // Lets a server that runs the check (the console's import job) answer other requests meanwhile.
          if (index % YIELD_EVERY === YIELD_EVERY - 1) await yieldToEventLoop();
          const result = checkRecord(collection, row.record, now, { eventsAllowHttp: options.eventsAllowHttp });
          if ('problem' in result)
            rejected.add({ collection, line: row.line, ...fieldReason(result.problem, row.record) });
          else passed.push({ row, key: result.key, references: result.references });
        }
        const references = passed.flatMap((p) => p.references);
        for (const referenced of COLLECTIONS) {
          const keys = references.flatMap((reference) => (reference.collection === referenced ? [reference.key] : []));
          if (keys.length > 0) await learn(referenced, keys);
        }
        // A dry run's "would add / would replace" (docs/console.md#import): one more lookup of the rows' own keys.
        if (options.foresee === true)
          await learn(
            collection,
            passed.map((p) => p.key),
          );
        let inserted = 0;
        let updated = 0;
        const records: unknown[] = [];
        for (const [index, { row, key, references }] of passed.entries()) {
          if (index % YIELD_EVERY === YIELD_EVERY - 1) await yieldToEventLoop();
          const unknown = references.find((reference) => !isKnown(reference));
          if (unknown !== undefined) {
            rejected.add({
              collection,
              line: row.line,
              ...rowReason('row-unknown-reference', {
                field: unknown.field,
                noun: COLLECTION_OF[unknown.collection].noun,
                // A key names a school (its address) or a record by id, never a person's data; bounded all the same.
                key: unknown.key.slice(0, 200),
              }),
            });
            continue;
          }
          records.push(row.record);
          // Each distinct key once, across this import's files too.
          if (!importedOf(collection).has(key)) {
            if (storedOf(collection).get(key) === true) updated++;
            else inserted++;
          }
          importedOf(collection).add(key);
        }
        dataSet[collection] = records;
        accepted[collection] = records.length;
        if (options.foresee === true) foreseen[collection] = { inserted, updated };
      }
      const rejectedCount: Partial<Record<DataSetCollection, number>> = {};
      for (const collection of COLLECTIONS) {
        const count = rejected.count(collection) + (unlisted[collection] ?? 0);
        if (count > 0) rejectedCount[collection] = count;
      }
      return {
        file: source.file,
        dataSet: dataSet,
        accepted,
        rejected: rejected.listed(),
        rejectedCount,
        notes: source.notes,
        ...(source.noteReasons === undefined ? {} : { noteReasons: source.noteReasons }),
        ...(options.foresee === true ? { foreseen } : {}),
      };
    },
  };
}
