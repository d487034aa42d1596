import { schoolKey } from '../domain/school-key';
import type { AbsencesTable, DevicesTable, NotesTable, SchoolsTable, StudentsTable } from './database';
import type { DataSet } from './data-set';
import { InvalidDataSetError, isoDate, isoTimestamp, optionalChoice, optionalFlag, optionalText, presentText, requiredText } from './data-set-values';

/**
 * One row to upsert: `row` holds every column for an insert (defaults filled
 * in), `given` names the optional columns the data set actually set, which
 * are the only optional ones an update may overwrite.
 */
export interface UpsertRecord<Row> {
  /** Where the record was in the data set, for error messages. */
  path: string;
  row: Row;
  given: readonly (keyof Row & string)[];
}

export interface NormalisedDataSet {
  schools: UpsertRecord<SchoolsTable>[];
  students: UpsertRecord<StudentsTable>[];
  devices: UpsertRecord<DevicesTable>[];
  notes: UpsertRecord<NotesTable>[];
  absences: UpsertRecord<AbsencesTable>[];
}

/** Checks and converts a data set to table rows; `now` stamps new marks. */
export function normaliseDataSet(dataSet: DataSet, now: string): NormalisedDataSet {
  return {
    schools: collect(dataSet, 'schools', (item, path) => {
      const baseUrl = requiredText(item.baseUrl, `${path}.baseUrl`);
      return {
        row: { key: schoolKey(baseUrl), base_url: baseUrl, name: requiredText(item.name, `${path}.name`) },
        given: [],
      };
    }),

    devices: collect(dataSet, 'devices', (item, path) => {
      const token = optionalText(item.token, `${path}.token`);
      const platform = optionalChoice(item.platform, `${path}.platform`, ['android', 'ios', 'web'] as const);
      return {
        row: { id: requiredText(item.id, `${path}.id`), push_token: token ?? null, platform: platform ?? null, updated_at: now },
        given: givenColumns({ push_token: token, platform }),
      };
    }),

    students: collect(dataSet, 'students', (item, path) => {
      const deviceId = optionalText(item.deviceId, `${path}.deviceId`);
      const classId = optionalText(item.classId, `${path}.classId`);
      const active = activeFlag(item.active, `${path}.active`);
      return {
        row: {
          id: requiredText(item.id, `${path}.id`),
          school_key: schoolKey(requiredText(item.school, `${path}.school`)),
          full_name: requiredText(item.fullName, `${path}.fullName`),
          device_id: deviceId ?? null,
          active: active ?? '1',
          class_id: classId ?? null,
        },
        given: givenColumns({ device_id: deviceId, active, class_id: classId }),
      };
    }),

    notes: collect(dataSet, 'notes', (item, path) => {
      const subjectId = optionalText(item.subjectId, `${path}.subjectId`);
      const classId = optionalText(item.classId, `${path}.classId`);
      const badge = optionalText(item.badge, `${path}.badge`);
      const state = optionalChoice(item.state, `${path}.state`, ['unread', 'read'] as const);
      return {
        row: {
          id: requiredText(item.id, `${path}.id`),
          student_id: requiredText(item.studentId, `${path}.studentId`),
          type: requiredText(item.type, `${path}.type`),
          subject_id: subjectId ?? null,
          class_id: classId ?? null,
          text: presentText(item.text, `${path}.text`),
          note_date: isoTimestamp(item.date, `${path}.date`),
          badge: badge ?? null,
          state: state ?? 'unread',
          read_at: state === 'read' ? now : null,
        },
        // read_at follows state (see the upsert), so it is given with it.
        given: givenColumns({ subject_id: subjectId, class_id: classId, badge, state, read_at: state }),
      };
    }),

    absences: collect(dataSet, 'absences', (item, path) => {
      const reason = optionalText(item.reason, `${path}.reason`);
      const seen = optionalFlag(item.seen, `${path}.seen`);
      return {
        row: {
          id: requiredText(item.id, `${path}.id`),
          student_id: requiredText(item.studentId, `${path}.studentId`),
          absence_date: isoDate(item.date, `${path}.date`),
          type: requiredText(item.type, `${path}.type`),
          reason: reason ?? null,
          seen: seen === true ? 1 : 0,
          seen_at: seen === true ? now : null,
        },
        given: givenColumns({ reason, seen, seen_at: seen }),
      };
    }),
  };
}

type Item<C extends keyof DataSet> = NonNullable<DataSet[C]>[number];

// Later records replace earlier ones with the same key: PostgreSQL refuses
// to update one row twice in a single INSERT … ON CONFLICT.
function collect<C extends keyof DataSet, Row extends { id: string } | { key: string }>(
  dataSet: DataSet,
  collection: C,
  convert: (item: Partial<Item<C>>, path: string) => Omit<UpsertRecord<Row>, 'path'>,
): UpsertRecord<Row>[] {
  const items: unknown = dataSet[collection];
  if (items === undefined || items === null) return [];
  if (!Array.isArray(items)) throw new InvalidDataSetError(collection, 'must be a list.');
  const byKey = new Map<string, UpsertRecord<Row>>();
  items.forEach((item: unknown, index) => {
    const path = `${collection}[${index}]`;
    if (typeof item !== 'object' || item === null) throw new InvalidDataSetError(path, 'must be an object.');
    const record = { path, ...convert(item, path) };
    byKey.set('key' in record.row ? record.row.key : record.row.id, record);
  });
  return [...byKey.values()];
}

function givenColumns<K extends string>(values: Record<K, unknown>): K[] {
  return (Object.keys(values) as K[]).filter((column) => values[column] !== undefined);
}

function activeFlag(value: unknown, path: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const text = String(value).trim();
  if (text === '1' || text === '0') return text;
  throw new InvalidDataSetError(path, 'must be "1" or "0".');
}
