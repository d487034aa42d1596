import type { StoreDatabase } from '../database';
import { COLLECTION_OF, COLLECTIONS, RowProblem, type DataSetCollection } from '../collections';
import type { DataSet } from './data-set';
import { InvalidDataSetError } from './data-set-values';
import { subscriptionChangeOf, type SubscriptionChange } from './event-subscriptions';

/**
 * One row to upsert: `row` holds every column for an insert (defaults filled
 * in), `given` names the optional columns the data set actually set, which
 * are the only optional ones an update may overwrite.
 */
export interface UpsertRecord<Row> {
  /** Where the record was in the data set, for error messages. */
  path: string;
  row: Row;
  given: readonly string[];
}

/** Each collection's rows, typed as its table's (the table each collection names, collections/). */
type CollectionRows = {
  [C in DataSetCollection]: UpsertRecord<StoreDatabase[(typeof COLLECTION_OF)[C]['table']]>[];
};

export type NormalisedDataSet = CollectionRows & {
  /** The schools' `eventsUrl` where given, one per school (event-subscriptions.ts). */
  eventSubscriptions: SubscriptionChange[];
  /** When the data set is written (new marks, new subscriptions). */
  now: string;
};

export interface NormaliseOptions {
  /** A school's eventsUrl may be http:// (EVENTS_ALLOW_HTTP). */
  readonly eventsAllowHttp?: boolean;
}

/**
 * Checks and converts a data set to table rows; `now` stamps new marks. Every
 * record is checked against its collection's schema (collections/), the one
 * the admin API validates with, after reading the spellings files use.
 */
export function normaliseDataSet(dataSet: DataSet, now: string, options: NormaliseOptions = {}): NormalisedDataSet {
  // Each collection's toRow writes the columns of its table (collections/), as
  // rows of column to value; Object.fromEntries keys them by string.
  const collections = Object.fromEntries(
    COLLECTIONS.map((collection) => [collection, collect(dataSet, collection, now)]),
  ) as CollectionRows;
  return { ...collections, eventSubscriptions: subscriptionChanges(dataSet, options), now };
}

// After collect() has checked the schools: each school's last eventsUrl wins, as its last record does.
function subscriptionChanges(dataSet: DataSet, options: NormaliseOptions): SubscriptionChange[] {
  const bySchool = new Map<string, SubscriptionChange>();
  (dataSet.schools ?? []).forEach((item, index) => {
    const change = subscriptionChangeOf(item, `schools[${index}]`, options.eventsAllowHttp === true);
    if (change !== null) bySchool.set(change.schoolKey, change);
  });
  return [...bySchool.values()];
}

// Later records replace earlier ones with the same key: PostgreSQL refuses
// to update one row twice in a single INSERT … ON CONFLICT.
function collect(
  dataSet: DataSet,
  collection: DataSetCollection,
  now: string,
): UpsertRecord<Record<string, unknown>>[] {
  const items: unknown = dataSet[collection];
  if (items === undefined || items === null) return [];
  if (!Array.isArray(items)) throw new InvalidDataSetError(collection, 'must be a list.');
  const { fieldsSchema, fromFile, toRow, keyColumn } = COLLECTION_OF[collection];
  const byKey = new Map<string, UpsertRecord<Record<string, unknown>>>();
  items.forEach((item: unknown, index) => {
    const path = `${collection}[${index}]`;
    if (typeof item !== 'object' || item === null) throw new InvalidDataSetError(path, 'must be an object.');
    const parsed = fieldsSchema.safeParse(fromFile(item as Record<string, unknown>));
    if (!parsed.success) {
      const [issue] = parsed.error.issues;
      throw new InvalidDataSetError(
        [path, ...(issue?.path ?? []).map(String)].join('.'),
        issue?.message ?? 'is not valid.',
      );
    }
    try {
      const { row, given } = toRow(parsed.data, now);
      byKey.set(String(row[keyColumn]), { path, row, given });
    } catch (error) {
      if (error instanceof RowProblem) throw new InvalidDataSetError(`${path}.${error.field}`, error.problem);
      throw error;
    }
  });
  return [...byKey.values()];
}
