import type { DataSetCollection } from '../store';

/** One record as read from a file, with where it was. */
export interface SourceRow {
  /** 1-based line of the file where the record starts. */
  readonly line: number;
  readonly record: Readonly<Record<string, unknown>>;
}

/** What one file holds, collection by collection. */
export interface Source {
  readonly file: string;
  readonly rows: Partial<Record<DataSetCollection, SourceRow[]>>;
  /** Rows refused while reading (a CSV row with the wrong number of fields), the first ones by line. */
  readonly unreadable: readonly {
    readonly collection: DataSetCollection;
    readonly line: number;
    readonly reason: string;
  }[];
  /** Rows refused while reading past those listed in `unreadable`, counted only (src/import/read-limits.ts). */
  readonly unlisted?: Partial<Record<DataSetCollection, number>>;
  /** Worth saying, not worth refusing (an ignored column). */
  readonly notes: readonly string[];
}

/** The file as a whole cannot be imported (unreadable, malformed, a name that is no collection). */
export class SourceError extends Error {
  override readonly name = 'SourceError';
}
