// The records role: what the operations read (types.ts, Records), on the
// statements prepared once per store (queries.ts).
import { whenSettled } from '../../shared/settled';
import { OptionsByTypeSchema, type OptionsByType } from '../../domain/message-options';
import { schoolKey } from '../../domain/school-key';
import { DEFAULT_TIME_ZONE } from '../../domain/school-time';
import type { StoreCore } from '../core';
import { GroupCommit, type GroupCommitBatching } from '../outbox/group-commit';
import type { Records, StudentPlacement } from '../types';
import { STUDENT_PLACEMENT_COLUMNS, type StoreQueries } from './queries';
import { idOrderWithinDate, toAbsenceRecord, toNoteRecord } from './rows';

function toStudentPlacement(row: {
  id: string;
  full_name: string;
  school_key: string;
  device_id: string | null;
  push_token: string | null;
  time_zone: string | null;
  quiet_hours: string | null;
  push_options: string | null;
}): StudentPlacement {
  return {
    studentId: row.id,
    fullName: row.full_name,
    schoolKey: row.school_key,
    deviceId: row.device_id,
    pushToken: row.push_token ?? null,
    schoolTimeZone: row.time_zone ?? DEFAULT_TIME_ZONE,
    quietHours: row.quiet_hours,
    pushOptions: parseOptionsByType(row.push_options),
  };
}

// Checked when written (the schools collection); a row edited by hand into something else reads as none.
// Parsed once per text: a school's options are read with every SendNotificationType call, their text
// changes only with an import, and the parsed value is the same object each time, which lets the
// message's options be merged once per school and type (src/domain/message-options.ts). At most
// PARSED_OPTIONS_KEPT texts are kept; the cache starts over when full.
const PARSED_OPTIONS_KEPT = 256;
const parsedOptions = new Map<string, OptionsByType | null>();

function parseOptionsByType(text: string | null): OptionsByType | null {
  if (text === null) return null;
  const known = parsedOptions.get(text);
  if (known !== undefined) return known;
  let options: OptionsByType | null;
  try {
    const parsed = OptionsByTypeSchema.safeParse(JSON.parse(text));
    options = parsed.success ? deepFreeze(parsed.data) : null;
  } catch {
    options = null;
  }
  if (parsedOptions.size >= PARSED_OPTIONS_KEPT) parsedOptions.clear();
  parsedOptions.set(text, options);
  return options;
}

// Shared by every read of the school: nobody may change it.
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

const tokenOf = (rows: readonly { push_token: string | null }[]): string | null => rows[0]?.push_token ?? null;

/** `batching`: on PostgreSQL, how concurrent student look-ups share one query; null reads each on its own. */
export function createRecords(core: StoreCore, queries: StoreQueries, batching: GroupCommitBatching | null): Records {
  const { db, run, read, readSettled } = core;

  // SendNotificationType reads the student, then queues: on PostgreSQL a
  // burst of calls would otherwise pay a round trip (and a statement the
  // server parses) each for the read even once their writes are grouped.
  const readStudents = async (studentIds: readonly string[]): Promise<(StudentPlacement | null)[]> => {
    const rows = await db
      .selectFrom('students')
      .leftJoin('devices', 'devices.id', 'students.device_id')
      .leftJoin('schools', 'schools.key', 'students.school_key')
      .select(STUDENT_PLACEMENT_COLUMNS)
      .where('students.id', 'in', [...new Set(studentIds)])
      .execute();
    const byId = new Map(rows.map((row) => [row.id, toStudentPlacement(row)]));
    return studentIds.map((id) => byId.get(id) ?? null);
  };
  const studentReads = batching === null ? null : new GroupCommit({ ...batching, write: readStudents });

  return {
    // The operations' hot reads: at once, without a promise, when SQLite read them at once (core.readSettled).
    // schoolKey is idempotent, so a caller passing a raw base URL still matches.
    listStudentsOfSchool: (key, active) => readSettled(queries.studentsOfSchool({ schoolKey: schoolKey(key), active })),

    getDeviceToken: (deviceId) => whenSettled(readSettled(queries.deviceToken({ deviceId })), tokenOf),

    // SQLite reads them by date only; the ids' order within a date is put right here (queries.ts, auditNotes).
    listAuditNotes: (subjectId, classId) =>
      whenSettled(readSettled(queries.auditNotes({ subjectId, classId })), (rows) =>
        (core.dialect === 'sqlite' ? idOrderWithinDate(rows) : rows).map(toNoteRecord),
      ),

    markNotesRead: (studentId, noteType) =>
      run(() =>
        core.writeTransaction(async (trx) => {
          await trx.executeQuery(queries.markNotesRead({ studentId, type: noteType, now: core.timestamp() }));
          const { rows } = await trx.executeQuery(queries.notesOfStudent({ studentId, type: noteType }));
          return rows.map(toNoteRecord);
        }),
      ),

    listAbsencesMarkSeen: (studentId) =>
      run(() =>
        core.writeTransaction(async (trx) => {
          const { rows } = await trx.executeQuery(queries.absencesOfStudent({ studentId }));
          const absences = rows.map(toAbsenceRecord);
          // Skipping the no-op update keeps a repeated call from writing.
          if (absences.some((absence) => !absence.seen)) {
            await trx.executeQuery(queries.markAbsencesSeen({ studentId, now: core.timestamp() }));
          }
          return absences;
        }),
      ),

    // On PostgreSQL, concurrent look-ups share one query, like the writes that
    // follow them; on SQLite it is a hot read like those above.
    findStudent: async (studentId) => {
      if (studentReads !== null) return run(() => studentReads.submit(studentId));
      const row = (await read(queries.student({ studentId })))[0];
      return row === undefined ? null : toStudentPlacement(row);
    },
  };
}
