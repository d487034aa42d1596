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

/**
 * `a` against `b` as SQLite's BINARY collation orders them (their UTF-8
 * bytes, so code points): as UTF-16 code units, except that a surrogate,
 * half of a code point past U+FFFF, comes after U+E000 to U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/**
 * Rows read newest first by `note_date` alone put in `id` order within each
 * date, in place: `order by note_date desc, id` on SQLite, without SQLite's
 * sorter (queries.ts, auditNotes). A date's rows are sorted only when out of order.
 */
export function idOrderWithinDate<R extends { readonly id: string; readonly note_date: string }>(rows: R[]): R[] {
  let start = 0;
  while (start < rows.length) {
    const date = rows[start].note_date;
    let end = start + 1;
    let ordered = true;
    while (end < rows.length && rows[end].note_date === date) {
      if (ordered && compareCodePoints(rows[end - 1].id, rows[end].id) > 0) ordered = false;
      end++;
    }
    if (!ordered) {
      const run = rows.slice(start, end).sort((x, y) => compareCodePoints(x.id, y.id));
      for (let i = 0; i < run.length; i++) rows[start + i] = run[i];
    }
    start = end;
  }
  return rows;
}
