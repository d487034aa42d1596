import type { AbsencesTable, NotesTable } from '../database';
import type { AbsenceRecord, NoteRecord } from '../types';

type NoteRow = Pick<
  NotesTable,
  'id' | 'student_id' | 'type' | 'subject_id' | 'class_id' | 'text' | 'note_date' | 'badge' | 'state'
>;
type AbsenceRow = Pick<AbsencesTable, 'id' | 'student_id' | 'absence_date' | 'type' | 'reason' | 'seen'>;

export function toNoteRecord(row: NoteRow): NoteRecord {
  return {
    id: row.id,
    studentId: row.student_id,
    type: row.type,
    subjectId: row.subject_id,
    classId: row.class_id,
    text: row.text,
    date: row.note_date,
    badge: row.badge,
    state: row.state,
  };
}

export function toAbsenceRecord(row: AbsenceRow): AbsenceRecord {
  return {
    id: row.id,
    studentId: row.student_id,
    date: row.absence_date,
    type: row.type,
    reason: row.reason,
    // An integer on both dialects; Number() also copes with a driver that
    // hands back a string or boolean.
    seen: Number(row.seen) === 1,
  };
}
