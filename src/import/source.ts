import type { DataSetCollection } from '../store';
import { reasonText, type Reason, type ReasonCode, type ReasonParams } from './reasons';
import type { Refusal } from './read-limits';

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
  readonly unreadable: readonly Refusal[];
  /** Rows refused while reading past those listed in `unreadable`, counted only (src/import/read-limits.ts). */
  readonly unlisted?: Partial<Record<DataSetCollection, number>>;
  /** Worth saying, not worth refusing (an ignored column). */
  readonly notes: readonly string[];
  /** The same notes as codes (src/import/reasons.ts), when every note has one: the console's languages. */
  readonly noteReasons?: readonly Reason[];
}

/** The file as a whole cannot be imported (unreadable, malformed, a name that is no collection). */
export class SourceError extends Error {
  override readonly name = 'SourceError';

  /** The message is the reason's English words (src/import/reasons.ts); the console says it in its own language. */
  constructor(readonly reason: Reason) {
    super(reasonText(reason));
  }
}

/** A file refused as a whole, for `code`. */
export const sourceError = (code: ReasonCode, params: ReasonParams): SourceError => new SourceError({ code, params });
