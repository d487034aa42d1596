// Absences of a student (docs/design.md#import-format). The seen mark's time
// follows the flag, as a note's read mark follows its state.
import { defineCollection } from './collection';
import { flag, isoDate, optionalText, requiredText } from './fields';

export const absences = defineCollection({
  name: 'absences',
  noun: 'absence',
  title: 'Absence',
  table: 'absences',
  key: 'id',
  keyColumn: 'id',
  fields: {
    id: requiredText('id', 128, { description: 'Absence id.' }),
    studentId: requiredText('student_id', 128, { description: 'Id of the student.', filter: true }),
    date: isoDate('absence_date', 'ISO 8601 date, YYYY-MM-DD.'),
    type: requiredText('type', 64),
    reason: optionalText('reason', 1000, 'Reason'),
    seen: flag('seen', 'Whether the parents app has shown it; false for a new absence.', { filter: true }),
  },
  references: { studentId: { collection: 'students', onDelete: 'cascade' } },
  derived: (record, now) => ({
    row: { seen_at: record.seen === true ? now : null },
    given: record.seen === undefined ? [] : ['seen_at'],
  }),
});
