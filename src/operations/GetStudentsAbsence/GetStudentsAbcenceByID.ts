// GetStudentsAbcenceByID(STDid): a student's absences, newest first, marked
// seen in the same transaction (docs/design.md#what-each-operation-does).
// Void on the wire.
import type { GetStudentsAbcenceByIDArgs } from '../../contract/generated';
import type { AbsenceRecord } from '../../store';
import type { OperationDeps } from '../define';
import { holdsNul } from '../../shared/nul';

export const GetStudentsAbcenceByID =
  ({ store }: OperationDeps) =>
  async ({ STDid: studentId }: GetStudentsAbcenceByIDArgs): Promise<AbsenceRecord[]> => {
    // A missing argument, or one holding a NUL, matches nothing and marks nothing (src/shared/nul.ts).
    if (studentId === null || holdsNul(studentId)) return [];
    return store.records.listAbsencesMarkSeen(studentId);
  };
