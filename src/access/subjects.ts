// Whose personal data each operation reads: what the audit trail records as
// the subject of a call, and what the enumeration budget counts.
import type { WireOperationName, WireOperations } from '../contract';
import type { AuditSubjectKind } from './contracts';

export interface SubjectRule {
  readonly kind: AuditSubjectKind;
  /** The parameter (its wire name) that holds the subject. */
  readonly parameter: string;
}

/** Operations that read personal data; AuthCode reads none (its limits live in the store). A parameter the operation lacks does not compile. */
export const AUDITED = {
  GetStudentSchool: { kind: 'school', parameter: 'school_base_url' },
  GetTokenDevice: { kind: 'device', parameter: 'id' },
  GetStudentsAbcenceByID: { kind: 'student', parameter: 'STDid' },
  UpdateNoteState: { kind: 'student', parameter: 'STDid' },
  SendNotificationType: { kind: 'student', parameter: 'id' },
  GetStudentsAudtiNote: { kind: 'class', parameter: 'Class_id' },
} as const satisfies {
  readonly [K in WireOperationName]?: SubjectRule & { readonly parameter: keyof WireOperations[K]['args'] };
};

const RULES: Readonly<Partial<Record<WireOperationName, SubjectRule>>> = AUDITED;

/** The rule of an operation that reads personal data, or undefined. */
export function subjectRule(operation: WireOperationName): SubjectRule | undefined {
  return RULES[operation];
}

/** Walking through ids is what the enumeration budget stops: student and device ids. */
export function countsForEnumeration(kind: AuditSubjectKind): boolean {
  return kind === 'student' || kind === 'device';
}
