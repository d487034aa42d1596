import type { Kysely } from 'kysely';
import type { StoreDatabase } from '../database';
import type { StoreDialect } from '../migrations';
import { prepareQuery } from '../connection/prepared';

// The statements behind the Store operations, compiled once per store.
// Newest first is the date descending; the id breaks ties so that a page
// shows the same order on every call and on both dialects.
export function prepareQueries(db: Kysely<StoreDatabase>, dialect: StoreDialect) {
  const noteColumns = [
    'id',
    'student_id',
    'type',
    'subject_id',
    'class_id',
    'text',
    'note_date',
    'badge',
    'state',
  ] as const;

  return {
    ping: prepareQuery([], () => db.selectNoFrom((eb) => eb.lit(1).as('ok'))),

    anySchool: prepareQuery([], () => db.selectFrom('schools').select('key').limit(1)),

    studentsOfSchool: prepareQuery(['schoolKey', 'active'], (p) =>
      db
        .selectFrom('students')
        // Selected straight into the StudentSummary shape: a school can have
        // thousands of students, and a second copy per row is measurable.
        .select(['id as studentId', 'full_name as fullName', 'device_id as deviceId', 'active'])
        .where('school_key', '=', p.schoolKey)
        .where('active', '=', p.active)
        .orderBy('full_name')
        .orderBy('id'),
    ),

    deviceToken: prepareQuery(['deviceId'], (p) =>
      db.selectFrom('devices').select('push_token').where('id', '=', p.deviceId),
    ),

    // On SQLite the id's order within a date is put right in the rows read
    // (rows.ts, idOrderWithinDate): the index gives the dates' order, and
    // asking SQLite for the id's too made it sort every call's rows in a
    // sorter of its own, which cost more than the read
    // (docs/benchmark.md#sixth-round-the-operations-share).
    auditNotes: prepareQuery(['subjectId', 'classId'], (p) =>
      db
        .selectFrom('notes')
        .select(noteColumns)
        .where('type', '=', 'audit')
        .where('subject_id', '=', p.subjectId)
        .where('class_id', '=', p.classId)
        .orderBy('note_date', 'desc')
        .$if(dialect !== 'sqlite', (query) => query.orderBy('id')),
    ),

    markNotesRead: prepareQuery(['studentId', 'type', 'now'], (p) =>
      db
        .updateTable('notes')
        .set({ state: 'read', read_at: p.now })
        .where('student_id', '=', p.studentId)
        .where('type', '=', p.type)
        .where('state', '=', 'unread'),
    ),

    notesOfStudent: prepareQuery(['studentId', 'type'], (p) =>
      db
        .selectFrom('notes')
        .select(noteColumns)
        .where('student_id', '=', p.studentId)
        .where('type', '=', p.type)
        .orderBy('note_date', 'desc')
        .orderBy('id'),
    ),

    absencesOfStudent: prepareQuery(['studentId'], (p) =>
      db
        .selectFrom('absences')
        .select(['id', 'student_id', 'absence_date', 'type', 'reason', 'seen'])
        .where('student_id', '=', p.studentId)
        .orderBy('absence_date', 'desc')
        .orderBy('id')
        // A concurrent call then waits and reads the rows as this one left
        // them, so each absence is reported unseen exactly once. SQLite's
        // immediate transaction already serialises writers.
        .$if(dialect === 'postgres', (query) => query.forUpdate()),
    ),

    markAbsencesSeen: prepareQuery(['studentId', 'now'], (p) =>
      db
        .updateTable('absences')
        .set({ seen: 1, seen_at: p.now })
        .where('student_id', '=', p.studentId)
        .where('seen', '=', 0),
    ),

    // The device and school columns as scalar subqueries rather than left
    // joins (the same values, null when there is no row): SQLite runs this
    // in 5 µs against 21 µs for the joins, a tight loop on the same file
    // (docs/benchmark.md#ingestion).
    student: prepareQuery(['studentId'], (p) =>
      db
        .selectFrom('students')
        .select(['students.id', 'students.full_name', 'students.school_key', 'students.device_id'])
        .select((eb) => {
          const device = () => eb.selectFrom('devices').whereRef('devices.id', '=', 'students.device_id');
          const school = () => eb.selectFrom('schools').whereRef('schools.key', '=', 'students.school_key');
          return [
            device().select('devices.push_token').as('push_token'),
            school().select('schools.time_zone').as('time_zone'),
            school().select('schools.quiet_hours').as('quiet_hours'),
            school().select('schools.push_options').as('push_options'),
          ];
        })
        .where('students.id', '=', p.studentId),
    ),
  };
}

/** What SendNotificationType reads of a student: where the push goes, and the school's clock and options. */
export const STUDENT_PLACEMENT_COLUMNS = [
  'students.id',
  'students.full_name',
  'students.school_key',
  'students.device_id',
  'devices.push_token',
  'schools.time_zone',
  'schools.quiet_hours',
  'schools.push_options',
] as const;

export type StoreQueries = ReturnType<typeof prepareQueries>;
