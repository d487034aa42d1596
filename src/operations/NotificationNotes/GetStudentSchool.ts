// GetStudentSchool(school_base_url, show_active): the students of a school
// whose active flag equals show_active, by full name then id
// (docs/design.md#what-each-operation-does, #school-matching, #the-char-parameter).
import type { GetStudentSchoolArgs, GetStudentSchoolResult } from '../../contract/generated';
import { schoolKey } from '../../domain';
import { whenSettled, type Settled } from '../../shared/settled';
import type { OperationDeps } from '../define';

export const GetStudentSchool =
  ({ store }: OperationDeps) =>
  // Not async: the list read at once is the answer at once (docs/design.md#answered-in-the-same-turn).
  ({
    school_base_url: schoolBaseUrl,
    show_active: showActive,
  }: GetStudentSchoolArgs): Settled<GetStudentSchoolResult> => {
    // A missing argument matches nothing.
    if (schoolBaseUrl === null || showActive === null) return [];
    return whenSettled(store.records.listStudentsOfSchool(schoolKey(schoolBaseUrl), showActive), (students) =>
      students.map((s) => ({
        studentId: s.studentId,
        fullName: s.fullName,
        deviceId: s.deviceId,
        showActive: s.active,
      })),
    );
  };
