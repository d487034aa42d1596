// The import format (docs/design.md#import-format), as the importer, the admin API and
// the demo data hand it to the store.
import type { DevicePlatform } from './database';
import type { NoteState } from './types';

// Optional fields: left out (undefined) keeps what is stored (or takes the
// default for a new record); null or '' clears it. That lets a re-import
// without a `state` or `seen` column leave the parents' read marks alone.

export interface DataSetSchool {
  baseUrl: string;
  name: string;
}

export interface DataSetStudent {
  id: string;
  /** The school's base URL, in any form that normalises to its key. */
  school: string;
  fullName: string;
  deviceId?: string | null;
  /** `1` active (the default) or `0` inactive. */
  active?: string;
  classId?: string | null;
}

export interface DataSetDevice {
  id: string;
  token?: string | null;
  platform?: DevicePlatform | null;
}

export interface DataSetNote {
  id: string;
  studentId: string;
  type: string;
  subjectId?: string | null;
  classId?: string | null;
  text: string;
  /** ISO 8601 timestamp; without an offset it is read as UTC. */
  date: string;
  badge?: string | null;
  /** Defaults to `unread` for a new note. */
  state?: NoteState;
}

export interface DataSetAbsence {
  id: string;
  studentId: string;
  /** ISO 8601 date (YYYY-MM-DD). */
  date: string;
  type: string;
  reason?: string | null;
  /** Defaults to false for a new absence. */
  seen?: boolean;
}

export interface DataSet {
  schools?: readonly DataSetSchool[];
  students?: readonly DataSetStudent[];
  devices?: readonly DataSetDevice[];
  notes?: readonly DataSetNote[];
  absences?: readonly DataSetAbsence[];
}

export type DataSetCollection = keyof DataSet;

/** Distinct records written per collection (a repeated key counts once, the last one wins). */
export type DataSetCounts = Record<DataSetCollection, number>;

export interface WriteDataSetOptions {
  /** Called after each batch, for progress on large imports. */
  onProgress?: (collection: DataSetCollection, written: number, total: number) => void;
}
