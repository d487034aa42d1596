// Record-by-record access to the data set's collections (docs/design.md#import-format),
// for the admin API and the export: read one, list a page, delete, and the
// row-to-record mapping. Writes go through the data-set upsert so that one
// set of rules checks every way data gets in.
import type { Kysely } from 'kysely';
import { schoolKey } from '../../domain/school-key';
import type { StoreDatabase } from '../database';
import { COLLECTION_OF, COLLECTIONS, linksTo } from '../collections';
import { collectionTables, type LooseRow } from '../collections/collection-tables';
import type { DataSet, DataSetCollection } from '../data-set/data-set';

export type RecordOf<C extends DataSetCollection> = NonNullable<DataSet[C]>[number];

/** Equality filters by the collection's filter fields (`studentId`, `school`, …; collections/); other fields are ignored. */
export type RecordFilter = Readonly<Record<string, string | boolean | undefined>>;

export interface RecordPage<C extends DataSetCollection> {
  readonly items: RecordOf<C>[];
  /** Records matching the filter, all pages together. */
  readonly total: number;
}

export type DeleteResult = 'deleted' | 'not_found' | 'in_use';

export { COLLECTIONS };

// The collections share one code path; their row types differ, so this module
// speaks to Kysely with string names and maps rows itself (collections/).
type Row = LooseRow;

const fromRow = <C extends DataSetCollection>(collection: C, row: Row): RecordOf<C> =>
  COLLECTION_OF[collection].fromRow(row) as RecordOf<C>;

/** The stored key a record or a path names: a school's normalised base URL, anything else's id. */
export function recordKey(collection: DataSetCollection, key: string): string {
  return collection === 'schools' ? schoolKey(key) : key.trim();
}

// A filter's value as stored: a school's key for a base URL, 1 or 0 for a flag.
function filterCondition(
  collection: DataSetCollection,
  field: string,
  value: string | boolean,
): { column: string; value: unknown } | null {
  const { fields, filters } = COLLECTION_OF[collection];
  if (!Object.hasOwn(filters.shape, field)) return null;
  const { column, toColumn } = (
    fields as Readonly<Record<string, { column: string; toColumn: (value: unknown) => unknown }>>
  )[field];
  return { column, value: toColumn(value) };
}

export async function findRecord<C extends DataSetCollection>(
  db: Kysely<StoreDatabase>,
  collection: C,
  key: string,
): Promise<RecordOf<C> | null> {
  const { table, keyColumn } = COLLECTION_OF[collection];
  const row = await collectionTables(db)
    .selectFrom(table)
    .selectAll()
    .where(keyColumn, '=', recordKey(collection, key))
    .executeTakeFirst();
  return row === undefined ? null : fromRow(collection, row);
}

/** One page, in key order (stable across calls and dialects). */
export async function listRecords<C extends DataSetCollection>(
  db: Kysely<StoreDatabase>,
  collection: C,
  filter: RecordFilter,
  page: { limit: number; offset: number },
): Promise<RecordPage<C>> {
  const { table, keyColumn: key } = COLLECTION_OF[collection];
  let query = collectionTables(db).selectFrom(table);
  for (const [field, value] of Object.entries(filter)) {
    const condition = value === undefined ? null : filterCondition(collection, field, value);
    if (condition !== null) query = query.where(condition.column, '=', condition.value);
  }
  const counted = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  const rows = await query.selectAll().orderBy(key).limit(page.limit).offset(page.offset).execute();
  return { items: rows.map((row) => fromRow(collection, row)), total: Number(counted?.n ?? 0) };
}

/** Every record of a collection, in key order (the export). */
export async function readAllRecords<C extends DataSetCollection>(
  db: Kysely<StoreDatabase>,
  collection: C,
): Promise<RecordOf<C>[]> {
  const { table, keyColumn: key } = COLLECTION_OF[collection];
  const rows = await collectionTables(db).selectFrom(table).selectAll().orderBy(key).execute();
  return rows.map((row) => fromRow(collection, row));
}

// Rows per IN (...) lookup: far below both dialects' parameter limits.
const LOOKUP_BATCH = 500;

/** Which of `keys` are stored (keys in stored form, see recordKey). */
export async function existingKeys(
  db: Kysely<StoreDatabase>,
  collection: DataSetCollection,
  keys: readonly string[],
): Promise<Set<string>> {
  const { table, keyColumn: key } = COLLECTION_OF[collection];
  const found = new Set<string>();
  const unique = [...new Set(keys)];
  for (let start = 0; start < unique.length; start += LOOKUP_BATCH) {
    const rows = await collectionTables(db)
      .selectFrom(table)
      .select(key)
      .where(key, 'in', unique.slice(start, start + LOOKUP_BATCH))
      .execute();
    for (const row of rows) found.add(String(row[key]));
  }
  return found;
}

/**
 * Deletes one record; call inside a transaction. What the links to its
 * collection say (collections/): `in_use` while a record with a `refuse`
 * link names it (a school holding students); records with a `cascade` link
 * go with it (a student's notes and absences, which mean nothing without
 * it); the others keep the name. Outbox history stays.
 */
export async function deleteRecord(
  db: Kysely<StoreDatabase>,
  collection: DataSetCollection,
  key: string,
): Promise<DeleteResult> {
  const stored = recordKey(collection, key);
  const loose = collectionTables(db);
  const links = linksTo(collection);
  for (const link of links.filter((l) => l.onDelete === 'refuse')) {
    const { table } = COLLECTION_OF[link.from];
    const naming = await loose
      .selectFrom(table)
      .select(link.column)
      .where(link.column, '=', stored)
      .limit(1)
      .executeTakeFirst();
    if (naming !== undefined) return 'in_use';
  }
  for (const link of links.filter((l) => l.onDelete === 'cascade')) {
    await loose.deleteFrom(COLLECTION_OF[link.from].table).where(link.column, '=', stored).execute();
  }
  const { table, keyColumn } = COLLECTION_OF[collection];
  const result = await loose.deleteFrom(table).where(keyColumn, '=', stored).executeTakeFirst();
  return Number(result.numDeletedRows) > 0 ? 'deleted' : 'not_found';
}
