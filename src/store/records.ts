// Record-by-record access to the data set's collections (docs/design.md#import-format),
// for the admin API and the export: read one, list a page, delete, and the
// row-to-record mapping. Writes go through the data-set upsert so that one
// set of rules checks every way data gets in.
import type { Kysely } from 'kysely';
import { schoolKey } from '../domain/school-key';
import type { StoreDatabase } from './database';
import type { DataSet, DataSetCollection } from './data-set';

export type RecordOf<C extends DataSetCollection> = NonNullable<DataSet[C]>[number];

/** Equality filters by record field (`studentId`, `school`, …); unknown fields are ignored. */
export type RecordFilter = Readonly<Record<string, string | boolean | undefined>>;

export interface RecordPage<C extends DataSetCollection> {
  readonly items: RecordOf<C>[];
  /** Records matching the filter, all pages together. */
  readonly total: number;
}

export type DeleteResult = 'deleted' | 'not_found' | 'in_use';

interface CollectionMapping {
  readonly table: keyof StoreDatabase;
  readonly key: string;
  /** Record field → column, for filters. */
  readonly columns: Readonly<Record<string, string>>;
}

export const COLLECTIONS: readonly DataSetCollection[] = ['schools', 'devices', 'students', 'notes', 'absences'];

const MAPPING: Readonly<Record<DataSetCollection, CollectionMapping>> = {
  schools: { table: 'schools', key: 'key', columns: { baseUrl: 'key', name: 'name' } },
  students: {
    table: 'students',
    key: 'id',
    columns: { id: 'id', school: 'school_key', fullName: 'full_name', deviceId: 'device_id', active: 'active', classId: 'class_id' },
  },
  devices: { table: 'devices', key: 'id', columns: { id: 'id', token: 'push_token', platform: 'platform' } },
  notes: {
    table: 'notes',
    key: 'id',
    columns: { id: 'id', studentId: 'student_id', type: 'type', subjectId: 'subject_id', classId: 'class_id', state: 'state' },
  },
  absences: { table: 'absences', key: 'id', columns: { id: 'id', studentId: 'student_id', type: 'type', seen: 'seen' } },
};

type Row = Record<string, unknown>;
// The collections share one code path; their row types differ, so this module
// speaks to Kysely with string names and maps rows itself.
type LooseDb = Kysely<Record<string, Row>>;

const text = (value: unknown): string => String(value);
const nullableText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

const TO_RECORD: { readonly [C in DataSetCollection]: (row: Row) => RecordOf<C> } = {
  schools: (r) => ({ baseUrl: text(r.base_url), name: text(r.name) }),
  students: (r) => ({
    id: text(r.id),
    // The key normalises to itself, so it imports back to the same school.
    school: text(r.school_key),
    fullName: text(r.full_name),
    deviceId: nullableText(r.device_id),
    active: text(r.active),
    classId: nullableText(r.class_id),
  }),
  devices: (r) => ({ id: text(r.id), token: nullableText(r.push_token), platform: nullableText(r.platform) as RecordOf<'devices'>['platform'] }),
  notes: (r) => ({
    id: text(r.id),
    studentId: text(r.student_id),
    type: text(r.type),
    subjectId: nullableText(r.subject_id),
    classId: nullableText(r.class_id),
    text: text(r.text),
    date: text(r.note_date),
    badge: nullableText(r.badge),
    state: text(r.state) as RecordOf<'notes'>['state'],
  }),
  absences: (r) => ({
    id: text(r.id),
    studentId: text(r.student_id),
    date: text(r.absence_date),
    type: text(r.type),
    reason: nullableText(r.reason),
    seen: Number(r.seen) === 1,
  }),
};

/** The stored key a record or a path names: a school's normalised base URL, anything else's id. */
export function recordKey(collection: DataSetCollection, key: string): string {
  return collection === 'schools' ? schoolKey(key) : key.trim();
}

function columnValue(collection: DataSetCollection, field: string, value: string | boolean): string | number {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (collection === 'students' && field === 'school') return schoolKey(value);
  if (collection === 'schools' && field === 'baseUrl') return schoolKey(value);
  return value;
}

export async function findRecord<C extends DataSetCollection>(db: Kysely<StoreDatabase>, collection: C, key: string): Promise<RecordOf<C> | null> {
  const { table, key: keyColumn } = MAPPING[collection];
  const row = await (db as unknown as LooseDb).selectFrom(table).selectAll().where(keyColumn, '=', recordKey(collection, key)).executeTakeFirst();
  return row === undefined ? null : TO_RECORD[collection](row);
}

/** One page, in key order (stable across calls and dialects). */
export async function listRecords<C extends DataSetCollection>(
  db: Kysely<StoreDatabase>,
  collection: C,
  filter: RecordFilter,
  page: { limit: number; offset: number },
): Promise<RecordPage<C>> {
  const { table, key, columns } = MAPPING[collection];
  let query = (db as unknown as LooseDb).selectFrom(table);
  for (const [field, value] of Object.entries(filter)) {
    const column = columns[field];
    if (column !== undefined && value !== undefined) query = query.where(column, '=', columnValue(collection, field, value));
  }
  const counted = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  const rows = await query.selectAll().orderBy(key).limit(page.limit).offset(page.offset).execute();
  return { items: rows.map((row) => TO_RECORD[collection](row)), total: Number(counted?.n ?? 0) };
}

/** Every record of a collection, in key order (the export). */
export async function readAllRecords<C extends DataSetCollection>(db: Kysely<StoreDatabase>, collection: C): Promise<RecordOf<C>[]> {
  const { table, key } = MAPPING[collection];
  const rows = await (db as unknown as LooseDb).selectFrom(table).selectAll().orderBy(key).execute();
  return rows.map((row) => TO_RECORD[collection](row));
}

// Rows per IN (...) lookup: far below both dialects' parameter limits.
const LOOKUP_BATCH = 500;

/** Which of `keys` are stored (keys in stored form, see recordKey). */
export async function existingKeys(db: Kysely<StoreDatabase>, collection: DataSetCollection, keys: readonly string[]): Promise<Set<string>> {
  const { table, key } = MAPPING[collection];
  const found = new Set<string>();
  const unique = [...new Set(keys)];
  for (let start = 0; start < unique.length; start += LOOKUP_BATCH) {
    const rows = await (db as unknown as LooseDb)
      .selectFrom(table)
      .select(key)
      .where(key, 'in', unique.slice(start, start + LOOKUP_BATCH))
      .execute();
    for (const row of rows) found.add(String(row[key]));
  }
  return found;
}

/**
 * Deletes one record; call inside a transaction. A school still holding
 * students is `in_use`; a student takes its notes and absences with it (they
 * mean nothing without it), while outbox history stays.
 */
export async function deleteRecord(db: Kysely<StoreDatabase>, collection: DataSetCollection, key: string): Promise<DeleteResult> {
  const stored = recordKey(collection, key);
  if (collection === 'schools') {
    const student = await db.selectFrom('students').select('id').where('school_key', '=', stored).limit(1).executeTakeFirst();
    if (student !== undefined) return 'in_use';
  }
  if (collection === 'students') {
    await db.deleteFrom('notes').where('student_id', '=', stored).execute();
    await db.deleteFrom('absences').where('student_id', '=', stored).execute();
  }
  const { table, key: keyColumn } = MAPPING[collection];
  const result = await (db as unknown as LooseDb).deleteFrom(table).where(keyColumn, '=', stored).executeTakeFirst();
  return Number(result.numDeletedRows) > 0 ? 'deleted' : 'not_found';
}
