// Notes about a student (docs/design.md#import-format). The read mark's time
// follows the state: it is set when a record makes the note read.
import { defineCollection } from './collection';
import { choice, isoTimestamp, optionalText, presentText, requiredText } from './fields';

export const notes = defineCollection({
  name: 'notes',
  noun: 'note',
  title: 'Note',
  table: 'notes',
  key: 'id',
  keyColumn: 'id',
  fields: {
    id: requiredText('id', 128, { description: 'Note id.' }),
    studentId: requiredText('student_id', 128, { description: 'Id of the student the note is about.', filter: true }),
    type: requiredText('type', 64, { description: 'audit, general, behaviour, ... (free text).', filter: true }),
    subjectId: optionalText('subject_id', 64, 'Subject id', { filter: true }),
    classId: optionalText('class_id', 64, 'Class id', { filter: true }),
    text: presentText('text', 8000),
    date: isoTimestamp('note_date', 'ISO 8601; without an offset it is read as UTC.'),
    badge: optionalText('badge', 64, 'Badge'),
    // An empty cell in a file resets the note to unread, as the default does.
    state: choice('state', ['unread', 'read'], {
      description: 'unread (default for a new note) or read.',
      default: 'unread',
      anyCase: true,
      empty: 'unread',
      filter: true,
    }),
  },
  references: { studentId: { collection: 'students', onDelete: 'cascade' } },
  // read_at is given with state; the upsert keeps the stored time while the state stays (write-data-set.ts).
  derived: (record, now) => ({
    row: { read_at: record.state === 'read' ? now : null },
    given: record.state === undefined ? [] : ['read_at'],
  }),
});
