// The import format (docs/design.md#import-format) as files: one CSV file per
// collection, named after it, with these fields as its header row, or one
// JSON document holding the collections as arrays.
import type { DataSetCollection } from '../store';

export const FIELDS: Readonly<Record<DataSetCollection, readonly string[]>> = {
  schools: ['baseUrl', 'name'],
  students: ['id', 'school', 'fullName', 'deviceId', 'active', 'classId'],
  devices: ['id', 'token', 'platform'],
  notes: ['id', 'studentId', 'type', 'subjectId', 'classId', 'text', 'date', 'badge', 'state'],
  absences: ['id', 'studentId', 'date', 'type', 'reason', 'seen'],
};

/** Fields a CSV header must have; the others may be left out (stored values are then kept). */
export const REQUIRED_FIELDS: Readonly<Record<DataSetCollection, readonly string[]>> = {
  schools: ['baseUrl', 'name'],
  students: ['id', 'school', 'fullName'],
  devices: ['id'],
  notes: ['id', 'studentId', 'type', 'text', 'date'],
  absences: ['id', 'studentId', 'date', 'type'],
};

/** The collection a CSV file holds, from its name (`students.csv`, `Students.CSV`); null if none. */
export function collectionOfCsv(fileName: string): DataSetCollection | null {
  const match = /^([a-z]+)\.csv$/i.exec(fileName);
  const name = match?.[1]?.toLowerCase();
  return name !== undefined && Object.hasOwn(FIELDS, name) ? (name as DataSetCollection) : null;
}
