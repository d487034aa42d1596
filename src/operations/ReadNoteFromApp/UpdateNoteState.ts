// UpdateNoteState(STDid, note_type): the app has shown a student's notes of a
// type: every unread one becomes read, and the call reads them, newest first
// (docs/design.md#what-each-operation-does). Void on the wire.
import type { UpdateNoteStateArgs } from '../../contract/generated';
import type { NoteRecord } from '../../store';
import type { OperationDeps } from '../define';
import { holdsNul } from '../../shared/nul';

export const UpdateNoteState =
  ({ store }: OperationDeps) =>
  async ({ STDid: studentId, note_type: noteType }: UpdateNoteStateArgs): Promise<NoteRecord[]> => {
    // A missing argument, or one holding a NUL, matches nothing and marks nothing (src/shared/nul.ts).
    if (studentId === null || noteType === null || holdsNul(studentId, noteType)) return [];
    return store.records.markNotesRead(studentId, noteType);
  };
