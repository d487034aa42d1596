import type { OperationName, StudentInfo } from '../contract';
import type { AbsenceRecord, NoteRecord } from '../store';
import type { CallContext } from './context';

/** Arguments as the bindings read them: a missing SOAP string is null. */
type Args<K extends string> = { readonly [P in K]: string | null };

export interface OperationArgs {
  sendAuthCode: Args<'code' | 'phone'>;
  listAuditNotes: Args<'subjectId' | 'classId'>;
  markNotesRead: Args<'studentId' | 'noteType'>;
  listAbsences: Args<'studentId'>;
  listSchoolStudents: Args<'schoolBaseUrl' | 'showActive'>;
  getDeviceToken: Args<'deviceId'>;
  queueNotification: Args<'studentId' | 'schoolBaseUrl' | 'type'>;
}

/** Results. Operations whose wire result is void still return what they read, for the JSON bodies of the mobile apps. */
export interface OperationResults {
  sendAuthCode: void;
  listAuditNotes: NoteRecord[];
  markNotesRead: NoteRecord[];
  listAbsences: AbsenceRecord[];
  listSchoolStudents: StudentInfo[];
  getDeviceToken: string | null;
  queueNotification: void;
}

export type Operations = {
  readonly [K in OperationName]: (args: OperationArgs[K], context: CallContext) => Promise<OperationResults[K]>;
};
