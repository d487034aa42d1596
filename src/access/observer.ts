// How access control reports what it does, so that metrics can count it
// without the gate, the budgets or the audit trail knowing about Prometheus
// (src/metrics/access-metrics.ts).
import type { AuditEntry } from './contracts';

/** Why a call was refused: `network`, `auth`, `limit`, `enumeration`. */
export type RefusalReason = 'network' | 'auth' | 'limit' | 'enumeration';

export interface AccessObserver {
  /** An entry was handed to the audit trail. */
  audited(entry: AuditEntry): void;
  /**
   * A call was refused. The call budgets and the enumeration guard report
   * their own refusals (`limit`, `enumeration`); the gate reports `network`
   * and `auth`.
   */
  refused(reason: RefusalReason): void;
  /** Audit entries given up because the buffer was full while the store could not take them. */
  auditDropped(count: number): void;
  /** A write of the audit trail to the store failed (its entries stay buffered). */
  auditWriteFailed(): void;
  /** A merge of the call budgets with the other nodes' failed. */
  budgetSyncFailed(): void;
  /** Tracked callers (budgets or enumeration sets) forgotten to keep memory bounded. */
  evicted(what: 'budget' | 'enumeration', count: number): void;
}

/** Reports nothing: for a process without metrics (tests, tools). */
export const SILENT_ACCESS_OBSERVER: AccessObserver = {
  audited: () => undefined,
  refused: () => undefined,
  auditDropped: () => undefined,
  auditWriteFailed: () => undefined,
  budgetSyncFailed: () => undefined,
  evicted: () => undefined,
};
