// The access role: the call counters the budgets share between nodes, and
// the audit trail of reads of personal data (src/access); reading the trail
// is the admin role's.
import type { StoreCore } from '../core';
import type { StoreDialect } from '../migrations';
import { insertAuditRows, pruneAuditRows, type NewAuditRow } from './access-audit';
import { mergeCounters, pruneCounters, type CounterMerge } from './access-counters';

export interface AccessStore {
  /** The budgets are shared between nodes on PostgreSQL only. */
  readonly dialect: StoreDialect;
  /** Adds a node's call counts and reads the merged totals, in one transaction (see access-counters.ts). */
  mergeAccessCounters(merge: CounterMerge): Promise<Map<string, number>>;
  /** Deletes a batch of counter rows of windows that ended before `before`; how many. */
  pruneAccessCounters(before: string): Promise<number>;
  /** Writes audit entries in one statement (src/access/audit-trail.ts). */
  insertAuditEntries(entries: readonly NewAuditRow[]): Promise<void>;
  /** Deletes audit entries older than `before` (an ISO time); how many. Stops between batches once `signal` is aborted. */
  pruneAuditEntries(before: string, signal?: AbortSignal): Promise<number>;
}

export function createAccessStore(core: StoreCore): AccessStore {
  const { db, run } = core;
  return {
    dialect: core.dialect,
    mergeAccessCounters: (merge) => run(() => core.writeTransaction((trx) => mergeCounters(trx, merge))),
    pruneAccessCounters: (before) => run(() => pruneCounters(db, before)),
    insertAuditEntries: (entries) => run(() => insertAuditRows(db, entries)),
    pruneAuditEntries: (before, signal) => run(() => pruneAuditRows(db, before, signal)),
  };
}
