// GetStudentsAudtiNote(SubjectID, Class_id): the notes of type `audit` for a
// subject and class, newest first (docs/design.md#what-each-operation-does).
// Void on the wire; what it read goes to the apps' JSON bodies.
import type { GetStudentsAudtiNoteArgs } from '../../contract/generated';
import type { NoteRecord } from '../../store';
import type { OperationDeps } from '../define';
import { holdsNul } from '../../shared/nul';

export const GetStudentsAudtiNote =
  ({ store }: OperationDeps) =>
  // Not async: the notes read at once are the answer at once (docs/design.md#answered-in-the-same-turn).
  ({ SubjectID: subjectId, Class_id: classId }: GetStudentsAudtiNoteArgs): NoteRecord[] | Promise<NoteRecord[]> => {
    // A missing argument, or one holding a NUL, matches nothing (src/shared/nul.ts).
    if (subjectId === null || classId === null || holdsNul(subjectId, classId)) return [];
    return store.records.listAuditNotes(subjectId, classId);
  };
