// The import format (docs/design.md#import-format), as the importer, the admin API and
// the demo data hand it to the store.
import type { z } from 'zod';
import type { COLLECTION_OF, DataSetCollection } from '../collections';

// Optional fields: left out (undefined) keeps what is stored (or takes the
// default for a new record); null or '' clears it. That lets a re-import
// without a `state` or `seen` column leave the parents' read marks alone.
// Each record type is its collection's schema (collections/).

export type DataSetSchool = z.input<typeof COLLECTION_OF.schools.schema> & {
  /** The school's event receiver, without its secret (event-subscriptions.ts); null or '' removes it. */
  readonly eventsUrl?: string | null;
};
export type DataSetStudent = z.input<typeof COLLECTION_OF.students.schema>;
export type DataSetDevice = z.input<typeof COLLECTION_OF.devices.schema>;
export type DataSetNote = z.input<typeof COLLECTION_OF.notes.schema>;
export type DataSetAbsence = z.input<typeof COLLECTION_OF.absences.schema>;

export type DataSet = {
  readonly [C in DataSetCollection]?: readonly (C extends 'schools'
    ? DataSetSchool
    : z.input<(typeof COLLECTION_OF)[C]['schema']>)[];
};

export type { DataSetCollection };

/** Distinct records written per collection (a repeated key counts once, the last one wins). */
export type DataSetCounts = Record<DataSetCollection, number>;

export interface WriteDataSetOptions {
  /** A school's eventsUrl may be http:// (EVENTS_ALLOW_HTTP). */
  readonly eventsAllowHttp?: boolean;
  /** Called after each batch, for progress on large imports. */
  onProgress?: (collection: DataSetCollection, written: number, total: number) => void;
}
