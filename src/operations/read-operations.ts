import { schoolKey } from '../domain';
import type { Store } from '../store';
import type { Operations } from './types';

type ReadOperations = Pick<Operations, 'listAuditNotes' | 'markNotesRead' | 'listAbsences' | 'listSchoolStudents' | 'getDeviceToken'>;

/** The operations that read (and for notes and absences, mark) stored data. A missing argument matches nothing. */
export function createReadOperations(store: Store): ReadOperations {
  return {
    async listAuditNotes({ subjectId, classId }) {
      if (subjectId === null || classId === null) return [];
      return store.listAuditNotes(subjectId, classId);
    },

    async markNotesRead({ studentId, noteType }) {
      if (studentId === null || noteType === null) return [];
      return store.markNotesRead(studentId, noteType);
    },

    async listAbsences({ studentId }) {
      if (studentId === null) return [];
      return store.listAbsencesMarkSeen(studentId);
    },

    async listSchoolStudents({ schoolBaseUrl, showActive }) {
      if (schoolBaseUrl === null || showActive === null) return [];
      const students = await store.listStudentsOfSchool(schoolKey(schoolBaseUrl), showActive);
      return students.map((s) => ({ studentId: s.studentId, fullName: s.fullName, deviceId: s.deviceId, showActive: s.active }));
    },

    async getDeviceToken({ deviceId }) {
      if (deviceId === null) return null;
      return store.getDeviceToken(deviceId);
    },
  };
}
