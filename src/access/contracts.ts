// The seams of access control (docs/security.md): the gate that decides
// whether a call may run, the per-caller budgets it consults, and the audit
// trail of reads of personal data. Implementations live beside this file.
import type { SubjectKind } from '../contract';

/** `COUNT/DURATION`, such as `120/1m`, parsed. */
export interface RateRule {
  readonly max: number;
  readonly windowMs: number;
}

export type BudgetVerdict = { readonly ok: true } | { readonly ok: false; readonly retryAfterSeconds: number };

/**
 * Per-caller call budgets (`limit` in a policy). Counting never waits on the
 * store: counters live in memory and are merged with other nodes' through
 * the store every few seconds (PostgreSQL), so a burst across nodes can
 * overshoot by what the other nodes counted since the last merge.
 */
export interface CallBudgets {
  /** Counts one call by `caller` against the budget named `key` (for example `NotificationNotes.asmx/GetStudentSchool`). */
  take(key: string, caller: string, rule: RateRule, nowMs: number): BudgetVerdict;
  /** Whether `take` would refuse, without counting anything: asked before bcrypt runs for a caller's login. */
  spent(key: string, caller: string, rule: RateRule, nowMs: number): BudgetVerdict;
  start(): void;
  stop(): Promise<void>;
}

/**
 * Distinct students read per caller (`enumeration` in a policy): a caller
 * reading the same few students again and again is never refused, one
 * walking through ids is once it has read `rule.max` distinct ones in the
 * window.
 */
export interface EnumerationGuard {
  /**
   * Counts `subject` as read by `caller` against the budget named `key` (the
   * operation, as for CallBudgets): each operation's budget counts its own reads.
   */
  note(key: string, caller: string, subject: string, rule: RateRule, nowMs: number): BudgetVerdict;
}

/** Whose data a call touches (src/contract/operation-traits.ts). */
export type AuditSubjectKind = SubjectKind;

export interface AuditEntry {
  readonly at: Date;
  readonly address: string | null;
  /** The Basic user, when the call carried one that was accepted. */
  readonly user: string | null;
  readonly endpoint: string;
  readonly operation: string;
  readonly subjectKind: AuditSubjectKind | null;
  readonly subject: string | null;
  readonly outcome: 'allowed' | 'refused';
  /** Why it was refused: `network`, `auth`, `limit`, `enumeration`. */
  readonly reason: string | null;
}

/** Reads of personal data, kept in the store: `record` never waits on it (entries are written in batches). */
export interface AuditTrail {
  record(entry: AuditEntry): void;
  flush(): Promise<void>;
  stop(): Promise<void>;
}
