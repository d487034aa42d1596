// Read-modify-write of one record in one transaction, so that "create unless
// it exists" and "change these fields" cannot race another writer.
import type { Kysely } from 'kysely';
import { COLLECTION_OF } from '../collections';
import type { StoreDatabase } from '../database';
import type { DataSet, DataSetCollection } from '../data-set/data-set';
import { InvalidDataSetError } from '../data-set/data-set-values';
import { normaliseDataSet } from '../data-set/normalise-data-set';
import { findRecord, recordKey, type RecordOf } from './records';
import { writeNormalisedDataSet } from '../data-set/write-data-set';

/** What to do given the stored record (null: none): write this record, or refuse with a reason. */
export type RecordDecision<C extends DataSetCollection> =
  { readonly write: RecordOf<C> } | { readonly refuse: 'exists' | 'not_found' };

export type RecordChangeResult<C extends DataSetCollection> =
  | { readonly status: 'created' | 'updated'; readonly record: RecordOf<C> }
  | { readonly status: 'refused'; readonly reason: 'exists' | 'not_found' };

/** Call inside a write transaction. Throws InvalidDataSetError for a bad record or one whose key is not `key`. */
export async function changeRecord<C extends DataSetCollection>(
  db: Kysely<StoreDatabase>,
  collection: C,
  key: string,
  decide: (current: RecordOf<C> | null) => RecordDecision<C>,
  now: string,
): Promise<RecordChangeResult<C>> {
  const current = await findRecord(db, collection, key);
  const decision = decide(current);
  if ('refuse' in decision) return { status: 'refused', reason: decision.refuse };

  const dataSet: DataSet = { [collection]: [decision.write] };
  const data = normaliseDataSet(dataSet, now);
  const [written] = data[collection];
  const writtenKey = written === undefined ? undefined : 'key' in written.row ? written.row.key : written.row.id;
  if (writtenKey !== recordKey(collection, key)) {
    throw new InvalidDataSetError(
      `${collection}[0].${COLLECTION_OF[collection].key}`,
      `must name the record being written (${key}).`,
    );
  }
  await writeNormalisedDataSet(db, data);
  const stored = await findRecord(db, collection, key);
  if (stored === null) throw new Error(`${collection} ${key} was written but cannot be read back.`);
  return { status: current === null ? 'created' : 'updated', record: stored };
}
