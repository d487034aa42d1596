// `npm run import`: read every file, check every row (phase one, nothing
// written), then write each file in a transaction of its own. With --strict
// a single bad row or file stops the import before anything is written.
import { COLLECTIONS, InvalidDataSetError, StoreError, type DataSetCollection, type ImportStore } from '../store';
import { createSourceChecker, type CheckedSource, type Rejection } from './check-sources';
import { silentProgress, type Progress } from './progress';
import { reasonText, type Reason } from './reasons';
import type { ReadLimits } from './read-limits';
import { readSource } from './read-source';
import { SourceError, type Source } from './source';

/** A file to import, and the collection of a CSV file when its name and header do not say it. */
export interface ImportFile {
  readonly file: string;
  readonly collection?: DataSetCollection;
}

export interface ImportOptions {
  /** Refuse the whole import if any row or file is bad. */
  readonly strict?: boolean;
  /** Check only; write nothing. */
  readonly dryRun?: boolean;
  /** Also count, per collection, the keys a write would add and those it would replace (`wouldInsert`, `wouldUpdate`). */
  readonly foresee?: boolean;
  readonly progress?: Progress;
  readonly now?: () => Date;
  /** What a file may hold (docs/console.md#import-limits); none by default. */
  readonly limits?: ReadLimits;
  /** A school's eventsUrl may be http:// (EVENTS_ALLOW_HTTP); false when left out. */
  readonly eventsAllowHttp?: boolean;
}

export interface CollectionReport {
  readonly collection: DataSetCollection;
  /** Rows that passed the checks (a repeated key counts each time). */
  readonly accepted: number;
  /** Records written that were new; null when nothing was written. */
  readonly inserted: number | null;
  /** Records written that replaced a stored one; null when nothing was written. */
  readonly updated: number | null;
  readonly rejected: number;
  /** With `foresee`: distinct keys not stored yet, and keys stored already, among the accepted rows. */
  readonly wouldInsert?: number;
  readonly wouldUpdate?: number;
}

export interface FileReport {
  readonly file: string;
  /** `written`; `checked` (dry run); `not_written` (--strict refused the import); `failed`. */
  readonly status: 'written' | 'checked' | 'not_written' | 'failed';
  /** Why the file failed as a whole, in English. */
  readonly error: string | null;
  /** The same as a code with parameters (src/import/reasons.ts), for the console's languages; absent in reports kept from before. */
  readonly errorReason?: Reason | null;
  readonly collections: readonly CollectionReport[];
  /** The first rejected rows by line; each collection's `rejected` counts them all. */
  readonly rejected: readonly Rejection[];
  readonly notes: readonly string[];
  /** The notes as codes (src/import/reasons.ts), when each has one. */
  readonly noteReasons?: readonly Reason[];
  /** What a rejected row's number counts: a file's lines (the default), or the records of the legacy service's answers (legacy/). */
  readonly position?: 'line' | 'record';
}

export interface ImportReport {
  readonly files: readonly FileReport[];
  /** True when every row of every file was written (or, in a dry run, would be). */
  readonly complete: boolean;
  /** --strict refused the import: nothing was written. */
  readonly refused: boolean;
}

const rank = (source: Source): number =>
  Math.min(...COLLECTIONS.map((c, i) => ((source.rows[c]?.length ?? 0) > 0 ? i : COLLECTIONS.length)));

export async function importFiles(
  store: ImportStore,
  given: readonly (string | ImportFile)[],
  options: ImportOptions = {},
): Promise<ImportReport> {
  const inputs = given.map((item) => (typeof item === 'string' ? { file: item } : item));
  const files = inputs.map((input) => input.file);
  const progress = options.progress ?? silentProgress;
  const now = (options.now ?? (() => new Date()))().toISOString();
  const failed: FileReport[] = [];
  const sources: Source[] = [];
  for (const { file, collection } of inputs) {
    try {
      sources.push(await readSource(file, collection, options.limits));
    } catch (error) {
      if (!(error instanceof SourceError)) throw error;
      failed.push(failure(file, error.reason));
    }
  }
  // Records may only refer to earlier collections: schools before students before notes.
  sources.sort((a, b) => rank(a) - rank(b));

  const eventsAllowHttp = options.eventsAllowHttp === true;
  const checker = createSourceChecker(store, now, { foresee: options.foresee === true, eventsAllowHttp });
  const totalRows = sources.reduce((n, s) => n + COLLECTIONS.reduce((m, c) => m + (s.rows[c]?.length ?? 0), 0), 0);
  let checkedRows = 0;
  progress.stage('checking', totalRows);
  const checked: CheckedSource[] = [];
  for (const source of sources) checked.push(await checker.check(source, () => progress.update(++checkedRows)));
  progress.done();

  const refused = options.strict === true && (failed.length > 0 || checked.some((c) => c.rejected.length > 0));
  const reports: FileReport[] = [...failed];
  for (const source of checked) {
    if (refused) reports.push(report(source, 'not_written', null));
    else if (options.dryRun === true) reports.push(report(source, 'checked', null));
    else reports.push(await write(store, source, progress, eventsAllowHttp));
  }
  // In the order given on the command line.
  reports.sort((a, b) => files.indexOf(a.file) - files.indexOf(b.file));
  const complete = !refused && reports.every((r) => r.error === null && r.rejected.length === 0);
  return { files: reports, complete, refused };
}

async function write(
  store: ImportStore,
  source: CheckedSource,
  progress: Progress,
  eventsAllowHttp = false,
): Promise<FileReport> {
  const total = COLLECTIONS.reduce((n, c) => n + (source.accepted[c] ?? 0), 0);
  let before = 0;
  let current: DataSetCollection | null = null;
  progress.stage(`writing ${source.file}`, total);
  try {
    const counts = await store.importDataSet(source.dataSet, {
      eventsAllowHttp,
      onProgress: (collection, written) => {
        if (collection !== current) {
          if (current !== null) before += source.accepted[current] ?? 0;
          current = collection;
        }
        progress.update(before + written);
      },
    });
    return report(source, 'written', counts);
  } catch (error) {
    if (error instanceof InvalidDataSetError || error instanceof StoreError) {
      const why: Reason = { code: 'file-not-written', params: { file: source.file, detail: error.message } };
      return { ...report(source, 'failed', null), error: reasonText(why), errorReason: why };
    }
    throw error;
  } finally {
    progress.done();
  }
}

/**
 * Imports sources one by one as they arrive, each in a transaction of its
 * own, with the checks and the report of a file import; the seeding from the
 * legacy service (legacy/) feeds it one school at a time. No --strict: the
 * sources still to come are not known when one is written.
 */
export interface SourceImporter {
  importSource(source: Source, position?: FileReport['position']): Promise<FileReport>;
}

export function createSourceImporter(
  store: ImportStore,
  options: Pick<ImportOptions, 'dryRun' | 'now'> = {},
): SourceImporter {
  const checker = createSourceChecker(store, (options.now ?? (() => new Date()))().toISOString());
  return {
    async importSource(source, position) {
      const checked = await checker.check(source);
      const done =
        options.dryRun === true ? report(checked, 'checked', null) : await write(store, checked, silentProgress);
      return position === undefined ? done : { ...done, position };
    },
  };
}

function report(
  source: CheckedSource,
  status: FileReport['status'],
  counts: Awaited<ReturnType<ImportStore['importDataSet']>> | null,
): FileReport {
  const collections = COLLECTIONS.filter(
    (c) => source.accepted[c] !== undefined || (source.rejectedCount[c] ?? 0) > 0,
  ).map((collection): CollectionReport => ({
    collection,
    accepted: source.accepted[collection] ?? 0,
    inserted: counts === null ? null : counts.written[collection] - counts.updated[collection],
    updated: counts === null ? null : counts.updated[collection],
    rejected: source.rejectedCount[collection] ?? 0,
    ...(source.foreseen?.[collection] === undefined
      ? {}
      : { wouldInsert: source.foreseen[collection].inserted, wouldUpdate: source.foreseen[collection].updated }),
  }));
  return {
    file: source.file,
    status,
    error: null,
    collections,
    rejected: source.rejected,
    notes: source.notes,
    ...(source.noteReasons === undefined ? {} : { noteReasons: source.noteReasons }),
  };
}

function failure(file: string, why: Reason): FileReport {
  return { file, status: 'failed', error: reasonText(why), errorReason: why, collections: [], rejected: [], notes: [] };
}
