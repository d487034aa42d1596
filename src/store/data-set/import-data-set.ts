// The importer's write: the data-set upsert, plus how many of the records
// were already stored, counted in the same transaction so that the summary
// ("inserted, updated") describes what this write did.
import type { Kysely } from 'kysely';
import type { StoreDatabase } from '../database';
import type { DataSetCollection, DataSetCounts, WriteDataSetOptions } from './data-set';
import type { NormalisedDataSet } from './normalise-data-set';
import { COLLECTIONS, existingKeys } from '../records/records';
import { writeNormalisedDataSet } from './write-data-set';

export interface ImportCounts {
  /** Distinct records written per collection. */
  readonly written: DataSetCounts;
  /** Of those, how many replaced a stored record (the rest were inserted). */
  readonly updated: DataSetCounts;
}

/** Call inside a write transaction. */
export async function importNormalisedDataSet(
  db: Kysely<StoreDatabase>,
  data: NormalisedDataSet,
  options: WriteDataSetOptions = {},
): Promise<ImportCounts> {
  const updated = { schools: 0, students: 0, devices: 0, notes: 0, absences: 0 } satisfies Record<
    DataSetCollection,
    number
  >;
  for (const collection of COLLECTIONS) {
    const keys = data[collection].map((record) => ('key' in record.row ? record.row.key : record.row.id));
    if (keys.length > 0) updated[collection] = (await existingKeys(db, collection, keys)).size;
  }
  const written = await writeNormalisedDataSet(db, data, options);
  return { written, updated };
}
