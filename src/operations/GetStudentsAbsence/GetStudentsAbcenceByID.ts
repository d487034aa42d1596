// GetStudentsAbcenceByID(STDid): a student's absences, newest first, marked
// seen in the same transaction (docs/design.md#what-each-operation-does).
// Void on the wire.
import type { GetStudentsAbcenceByIDArgs } from '../../contract/generated';
import type { AbsenceRecord } from '../../store';
import type { OperationDeps } from '../define';

export const GetStudentsAbcenceByID =
  ({ store }: OperationDeps) =>
  async ({ STDid: studentId }: GetStudentsAbcenceByIDArgs): Promise<AbsenceRecord[]> => {
    // A missing argument matches nothing.
    if (studentId === null) return [];
    return store.records.listAbsencesMarkSeen(studentId);
  };
