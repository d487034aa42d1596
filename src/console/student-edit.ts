// Editing a student (operators, docs/console.md#editing-records): full name,
// class, device and the active flag, by the shared record form (record-edit.ts).
import { COLLECTION_OF } from '../store';
import type { EditSpec } from './record-edit';
import { CONSOLE_BASE } from './respond';
import { titled } from './view';

/** The student form: its fields, their checks, and where it goes. */
export function studentEdit(id: string): EditSpec {
  const here = `${CONSOLE_BASE}/students/${encodeURIComponent(id)}`;
  return {
    collection: 'students',
    fields: [
      { name: 'fullName', id: 'full-name', label: (t) => t.fullName, maxLength: 300, dir: 'auto', untrimmed: true },
      { name: 'classId', id: 'class-id', label: (t) => t.classId, maxLength: 100, dir: 'ltr', clearable: true },
      {
        name: 'deviceId',
        id: 'device-id',
        label: (t) => t.deviceId,
        hint: (t) => t.deviceHint,
        maxLength: 200,
        dir: 'ltr',
        clearable: true,
      },
      {
        name: 'active',
        id: 'active',
        label: (t) => t.activeLabel,
        dir: 'ltr',
        options: [
          { value: '1', label: (t) => t.yes },
          { value: '0', label: (t) => t.no },
        ],
      },
    ],
    patch: COLLECTION_OF.students.schema
      .pick({ fullName: true, classId: true, deviceId: true, active: true })
      .partial(),
    operation: 'student-edit',
    subjectKind: 'student',
    title: (t, record) => titled(t.editStudentTitle, String(record.fullName)),
    action: `${here}/edit`,
    back: here,
    saved: `${here}?saved=1`,
    missing: (t) => t.studentMissing,
    current: 'students',
  };
}
