// How much of a file the importer holds while it reads and checks it
// (docs/console.md#import-limits): a file of any shape is read in bounded
// memory, with a clear refusal past a limit rather than a process that grows
// until it dies.
import type { DataSetCollection } from '../store';
import type { Reason } from './reasons';

export interface ReadLimits {
  /** Records a file may hold, all collections together; past it the file is refused as a whole. */
  readonly maxRows: number;
}

/**
 * A school has a few thousand students and a roster of 100,000 (a district)
 * is about 8 MiB of CSV. Twice that leaves room for the largest roster while
 * keeping what a check holds under the memory the service can spare: a
 * checked row costs about 500 bytes, and the console's 32 MiB cap holds over
 * a million short rows (docs/console.md#import-limits has the measurements).
 */
export const DEFAULT_MAX_ROWS = 200_000;

export const NO_READ_LIMITS: ReadLimits = { maxRows: Number.POSITIVE_INFINITY };

/** Rejected rows listed in a report; past them the rest are counted, not kept. */
export const LISTED_REJECTIONS_MAX = 1000;

/** Fields a CSV record or a JSON record may have; the import format's collections have about ten. */
export const MAX_FIELDS = 256;

/** Characters a single CSV cell or JSON string may hold; a roster's longest field is a name or an address. */
export const MAX_CELL_CHARS = 64 * 1024;

/** Values a JSON record may hold inside its fields' objects and arrays: a school's message options are a few dozen. */
export const MAX_NESTED_VALUES = 1024;

/** How deep a JSON document may nest: the document, a collection, a record, and a little inside it. */
export const MAX_JSON_DEPTH = 32;

/** Work done between two turns of the event loop while a file is read, so that a server reading it keeps answering. */
export const READ_YIELD_EVERY = 20_000;

export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A refused row: where, why in English (`reason`, what the reports print), and why as a code (src/import/reasons.ts). */
export interface Refusal extends Reason {
  readonly collection: DataSetCollection;
  readonly line: number;
  readonly reason: string;
}

/**
 * The first LISTED_REJECTIONS_MAX refusals by line, and how many there were
 * in all per collection: a file of millions of bad rows costs a count, not
 * millions of kept objects.
 */
export class RefusalList<T extends Refusal = Refusal> {
  private kept: T[] = [];
  private readonly counts = new Map<DataSetCollection, number>();

  constructor(private readonly max = LISTED_REJECTIONS_MAX) {}

  add(refusal: T): void {
    this.counts.set(refusal.collection, (this.counts.get(refusal.collection) ?? 0) + 1);
    this.kept.push(refusal);
    // Trimmed once it holds twice the listed number: sorting is then paid once every `max` additions.
    if (this.kept.length >= 2 * this.max) this.trim();
  }

  /** Refusals of `collection` in all, listed or not. */
  count(collection: DataSetCollection): number {
    return this.counts.get(collection) ?? 0;
  }

  total(): number {
    let n = 0;
    for (const count of this.counts.values()) n += count;
    return n;
  }

  /** The listed ones, by line. */
  listed(): T[] {
    this.trim();
    return this.kept;
  }

  private trim(): void {
    this.kept.sort((a, b) => a.line - b.line);
    if (this.kept.length > this.max) this.kept.length = this.max;
  }
}
