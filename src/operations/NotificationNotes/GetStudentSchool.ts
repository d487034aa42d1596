// GetStudentSchool(school_base_url, show_active): the students of a school
// whose active flag equals show_active, by full name then id
// (docs/design.md#what-each-operation-does, #school-matching, #the-char-parameter).
import type { GetStudentSchoolArgs, GetStudentSchoolResult } from '../../contract/generated';
import { schoolKey } from '../../domain';
import { whenSettled, type Settled } from '../../shared/settled';
import type { OperationDeps } from '../define';
import { holdsNul } from '../../shared/nul';

export const GetStudentSchool =
  ({ store }: OperationDeps) =>
  // Not async: the list read at once is the answer at once (docs/design.md#answered-in-the-same-turn).
  ({
    school_base_url: schoolBaseUrl,
    show_active: showActive,
  }: GetStudentSchoolArgs): Settled<GetStudentSchoolResult> => {
    // A missing argument, or one holding a NUL, matches nothing (src/shared/nul.ts).
    if (schoolBaseUrl === null || showActive === null || holdsNul(schoolBaseUrl, showActive)) return [];
    return whenSettled(store.records.listStudentsOfSchool(schoolKey(schoolBaseUrl), showActive), (students) =>
      students.map((s) => ({
        studentId: s.studentId,
        fullName: s.fullName,
        deviceId: s.deviceId,
        showActive: s.active,
      })),
    );
  };
