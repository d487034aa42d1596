// Whose personal data each operation reads: what the audit trail records as
// the subject of a call, and what the enumeration budget counts. Both come
// from the operations' traits (src/contract/operation-traits.ts).
import { OPERATION_TRAITS, type WireOperationName } from '../contract';
import type { AuditSubjectKind } from './contracts';

export interface SubjectRule {
  readonly kind: AuditSubjectKind;
  /** The parameter (its wire name) that holds the subject. */
  readonly parameter: string;
  /** The enumeration budget counts the different subjects a caller reads. */
  readonly enumerated: boolean;
}

/** The subject rule of an audited operation, or undefined (AuthCode is not audited: its limits live in the store). */
export function subjectRule(operation: WireOperationName): SubjectRule | undefined {
  return OPERATION_TRAITS[operation].subject ?? undefined;
}
