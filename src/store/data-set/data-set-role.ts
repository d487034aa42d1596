// The data-set role: the whole data set in and out, for the importer, the
// exporter and the demo data. Every write goes through the one upsert
// (write-data-set.ts), checked by the collections' rules.
import type { StoreCore } from '../core';
import type { StoreQueries } from '../records/queries';
import { COLLECTIONS, existingKeys, readAllRecords } from '../records/records';
import type { DataSet, DataSetCollection, DataSetCounts, DataSetSchool, WriteDataSetOptions } from './data-set';
import { importNormalisedDataSet, type ImportCounts } from './import-data-set';
import { normaliseDataSet } from './normalise-data-set';
import { writeNormalisedDataSet } from './write-data-set';
import { EVENTS_URL_FIELD, subscriptionUrls } from './event-subscriptions';
import { schoolKey } from '../../domain/school-key';

export interface DataSetStore {
  /**
   * Upserts every record of the data set in one transaction. Throws
   * InvalidDataSetError (nothing written) for a bad or dangling value.
   */
  writeDataSet(dataSet: DataSet, options?: WriteDataSetOptions): Promise<DataSetCounts>;
  /** Like writeDataSet, and also counts how many records were already stored (the importer's summary). */
  importDataSet(dataSet: DataSet, options?: WriteDataSetOptions): Promise<ImportCounts>;
  /** Every stored record, in the import format (the export). */
  readDataSet(): Promise<Required<DataSet>>;
  /** Which of `keys` are stored. */
  existingKeys(collection: DataSetCollection, keys: readonly string[]): Promise<Set<string>>;
  /** True when no school is stored (the demo data may then be loaded). */
  isEmpty(): Promise<boolean>;
}

export function createDataSetStore(core: StoreCore, queries: StoreQueries): DataSetStore {
  const { db, run } = core;
  return {
    writeDataSet: (dataSet, options = {}) =>
      run(() => {
        const data = normaliseDataSet(dataSet, core.timestamp(), options);
        return core.writeTransaction((trx) => writeNormalisedDataSet(trx, data, options));
      }),

    importDataSet: (dataSet, options = {}) =>
      run(() => {
        const data = normaliseDataSet(dataSet, core.timestamp(), options);
        return core.writeTransaction((trx) => importNormalisedDataSet(trx, data, options));
      }),

    readDataSet: () =>
      run(async () => {
        const [[schools, devices, students, notes, absences], urls] = await Promise.all([
          Promise.all(COLLECTIONS.map((c) => readAllRecords(db, c))),
          subscriptionUrls(db),
        ]);
        // A school's subscription travels as its eventsUrl, without the secret (event-subscriptions.ts).
        const withUrls = (schools as DataSetSchool[]).map((school) => {
          const url = urls.get(schoolKey(school.baseUrl));
          return url === undefined ? school : { ...school, [EVENTS_URL_FIELD]: url };
        });
        return { schools: withUrls, devices, students, notes, absences } as Required<DataSet>;
      }),

    existingKeys: (collection, keys) => run(() => existingKeys(db, collection, keys)),

    isEmpty: () => run(async () => (await db.executeQuery(queries.anySchool({}))).rows.length === 0),
  };
}
