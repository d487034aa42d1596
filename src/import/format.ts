// The import format (docs/design.md#import-format) as files: one CSV file per
// collection, with these fields as its header row (named after the collection,
// or told by --collection or by its header: docs/operating.md#import-and-export),
// or one JSON document holding the collections as arrays.
import { COLLECTION_OF, COLLECTIONS, EVENTS_URL_FIELD, type Collection, type DataSetCollection } from '../store';

/** Every field of a collection, in header order (from its schema, src/store/collections/). */
export const FIELDS: Readonly<Record<DataSetCollection, readonly string[]>> = {
  ...fieldLists((c) => c.fieldNames),
  // A school's event subscription travels as its receiver's URL (src/store/data-set/event-subscriptions.ts).
  schools: [...COLLECTION_OF.schools.fieldNames, EVENTS_URL_FIELD],
};

/** Fields a CSV header must have; the others may be left out (stored values are then kept). */
export const REQUIRED_FIELDS: Readonly<Record<DataSetCollection, readonly string[]>> = fieldLists(
  (c) => c.requiredFields,
);

function fieldLists(
  list: (collection: Pick<Collection, 'fieldNames' | 'requiredFields'>) => readonly string[],
): Record<DataSetCollection, readonly string[]> {
  return Object.fromEntries(COLLECTIONS.map((name) => [name, list(COLLECTION_OF[name])])) as Record<
    DataSetCollection,
    readonly string[]
  >;
}

/**
 * The collection a CSV header row names (docs/operating.md#import-and-export):
 * the one whose required fields are all there and which knows every column;
 * failing that, the only one whose required fields are all there. Null when
 * none or several fit, or when the header names nothing but `id`, the key of
 * most collections (test/import/import.test.ts).
 */
export function collectionOfHeader(header: readonly string[]): DataSetCollection | null {
  const columns = header.map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
  if (columns.every((name) => name === 'id')) return null;
  const fieldsOf = (c: DataSetCollection) => FIELDS[c].map((f) => f.toLowerCase());
  const complete = (Object.keys(FIELDS) as DataSetCollection[]).filter((c) =>
    REQUIRED_FIELDS[c].every((f) => columns.includes(f.toLowerCase())),
  );
  const exact = complete.filter((c) => columns.every((name) => fieldsOf(c).includes(name)));
  if (exact.length === 1) return exact[0] ?? null;
  return complete.length === 1 ? (complete[0] ?? null) : null;
}

/** The collection a CSV file holds, from its name (`students.csv`, `Students.CSV`); null if none. */
export function collectionOfCsv(fileName: string): DataSetCollection | null {
  const match = /^([a-z]+)\.csv$/i.exec(fileName);
  const name = match?.[1]?.toLowerCase();
  return name !== undefined && Object.hasOwn(FIELDS, name) ? (name as DataSetCollection) : null;
}
