// Whose personal data each operation reads: what the audit trail records as
// the subject of a call, and what the enumeration budget counts.
import type { OperationName } from '../contract';
import type { AuditSubjectKind } from './contracts';

export interface SubjectRule {
  readonly kind: AuditSubjectKind;
  /** The argument (our name, contracts.ts `argName`) that holds the subject. */
  readonly argName: string;
}

/** Operations that read personal data; AuthCode reads none (its limits live in the store). */
export const AUDITED: Readonly<Partial<Record<OperationName, SubjectRule>>> = {
  listSchoolStudents: { kind: 'school', argName: 'schoolBaseUrl' },
  getDeviceToken: { kind: 'device', argName: 'deviceId' },
  listAbsences: { kind: 'student', argName: 'studentId' },
  markNotesRead: { kind: 'student', argName: 'studentId' },
  queueNotification: { kind: 'student', argName: 'studentId' },
  listAuditNotes: { kind: 'class', argName: 'classId' },
};

/** Walking through ids is what the enumeration budget stops: student and device ids. */
export function countsForEnumeration(kind: AuditSubjectKind): boolean {
  return kind === 'student' || kind === 'device';
}
