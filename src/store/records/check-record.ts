// The data set's field rules applied to one record, for the importer's
// row-by-row report: the same checks writeDataSet makes, one row at a time.
import { checkedLinksFrom } from '../collections';
import type { DataSetCollection } from '../data-set/data-set';
import { InvalidDataSetError } from '../data-set/data-set-values';
import { normaliseDataSet, type NormaliseOptions } from '../data-set/normalise-data-set';

export interface RecordCheck {
  /** The record's key as stored (a school's normalised base URL, anything else's id). */
  readonly key: string;
  /** The records it names that must exist (a student's school, a note's student; collections/), as stored keys. */
  readonly references: readonly RecordReference[];
}

export interface RecordReference {
  readonly field: string;
  readonly collection: DataSetCollection;
  readonly key: string;
}

/** The record's stored key and references, or the problem as `field problem` (`active must be "1" or "0".`). */
export function checkRecord(
  collection: DataSetCollection,
  record: unknown,
  now: string,
  options: NormaliseOptions = {},
): RecordCheck | { readonly problem: string } {
  try {
    const data = normaliseDataSet({ [collection]: [record] }, now, options);
    const [checked] = data[collection];
    if (checked === undefined) return { problem: 'is empty.' };
    const row: Readonly<Record<string, unknown>> = checked.row;
    return {
      key: String(row.key ?? row.id),
      references: checkedLinksFrom(collection).flatMap((link) => {
        const key = row[link.column];
        return typeof key === 'string' ? [{ field: link.field, collection: link.to, key }] : [];
      }),
    };
  } catch (error) {
    if (!(error instanceof InvalidDataSetError)) throw error;
    const prefix = `${collection}[0]`;
    return {
      problem: error.message.startsWith(`${prefix}.`)
        ? error.message.slice(prefix.length + 1)
        : error.message.replace(prefix, 'the record'),
    };
  }
}
