// The import format (docs/design.md#import-format) as files: one CSV file per
// collection, named after it, with these fields as its header row, or one
// JSON document holding the collections as arrays.
import { COLLECTION_OF, COLLECTIONS, type Collection, type DataSetCollection } from '../store';

/** Every field of a collection, in header order (from its schema, src/store/collections/). */
export const FIELDS: Readonly<Record<DataSetCollection, readonly string[]>> = fieldLists((c) => c.fieldNames);

/** Fields a CSV header must have; the others may be left out (stored values are then kept). */
export const REQUIRED_FIELDS: Readonly<Record<DataSetCollection, readonly string[]>> = fieldLists(
  (c) => c.requiredFields,
);

function fieldLists(list: (collection: Collection) => readonly string[]): Record<DataSetCollection, readonly string[]> {
  return Object.fromEntries(
    COLLECTIONS.map((name) => [name, list(COLLECTION_OF[name] as unknown as Collection)]),
  ) as Record<DataSetCollection, readonly string[]>;
}

/** The collection a CSV file holds, from its name (`students.csv`, `Students.CSV`); null if none. */
export function collectionOfCsv(fileName: string): DataSetCollection | null {
  const match = /^([a-z]+)\.csv$/i.exec(fileName);
  const name = match?.[1]?.toLowerCase();
  return name !== undefined && Object.hasOwn(FIELDS, name) ? (name as DataSetCollection) : null;
}
