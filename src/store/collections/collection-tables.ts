// The tables of the data set's collections, as code written once for every
// collection sees them (records/records.ts, data-set/write-data-set.ts): the
// table and its columns are strings from the collection's definition
// (collection.ts), and rows are maps of column to value.
import type { Kysely } from 'kysely';
import type { StoreDatabase } from '../database';

export type LooseRow = Record<string, unknown>;

export type CollectionTables = Kysely<Record<string, LooseRow>>;

/** The database for a query on whichever collection's table. */
export function collectionTables(db: Kysely<StoreDatabase>): CollectionTables {
  // defineCollection checks each collection's table and columns against
  // database.ts, but a query written for every collection takes them from a
  // collection chosen at run time, which the compiler cannot follow.
  return db as unknown as CollectionTables;
}
