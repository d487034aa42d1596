// UpdateNoteState(STDid, note_type): the app has shown a student's notes of a
// type: every unread one becomes read, and the call reads them, newest first
// (docs/design.md#what-each-operation-does). Void on the wire.
import type { UpdateNoteStateArgs } from '../../contract/generated';
import type { NoteRecord } from '../../store';
import type { OperationDeps } from '../define';

export const UpdateNoteState =
  ({ store }: OperationDeps) =>
  async ({ STDid: studentId, note_type: noteType }: UpdateNoteStateArgs): Promise<NoteRecord[]> => {
    // A missing argument matches nothing.
    if (studentId === null || noteType === null) return [];
    return store.records.markNotesRead(studentId, noteType);
  };
