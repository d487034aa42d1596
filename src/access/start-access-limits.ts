// The access limits of one server process, built and started together: call
// budgets, the enumeration guard, the audit trail and its retention
// (docs/access-limits.md). The gate consults the first two and records into
// the third; stop() belongs in the shutdown sequence after the servers have
// drained and before the store closes (register it after the store).
import type { Logger } from '../log';
import type { AuditPruningStore } from './audit-retention';
import { startAuditPruning } from './audit-retention';
import { createAuditTrail, type AuditSink, type BufferedAuditTrail } from './audit-trail';
import { createCallBudgets, type BudgetStore, type SharedCallBudgets } from './call-budgets';
import { createEnumerationGuard, type BoundedEnumerationGuard } from './enumeration-guard';
import { SILENT_ACCESS_OBSERVER, type AccessObserver } from './observer';

export interface AccessLimitsOptions {
  /** The service's store: budgets are shared through it on PostgreSQL, the audit trail is written to it. */
  readonly store: BudgetStore & AuditSink & AuditPruningStore;
  readonly logger: Logger;
  /** `metrics.access` from createMetrics(). */
  readonly observer?: AccessObserver;
  /** AUDIT_RETENTION_DAYS; null keeps entries. */
  readonly auditRetentionDays: number | null;
  /** ACCESS_SYNC_INTERVAL_MS. */
  readonly syncIntervalMs: number;
}

export interface AccessLimits {
  readonly budgets: SharedCallBudgets;
  readonly enumeration: BoundedEnumerationGuard;
  readonly audit: BufferedAuditTrail;
  /** Stops the pruning, writes what the audit trail holds, and gives the other nodes this node's last counts. Safe to repeat. */
  stop(): Promise<void>;
}

export function startAccessLimits(options: AccessLimitsOptions): AccessLimits {
  const { store, logger } = options;
  const observer = options.observer ?? SILENT_ACCESS_OBSERVER;
  const budgets = createCallBudgets({ store, logger, observer, syncIntervalMs: options.syncIntervalMs });
  const enumeration = createEnumerationGuard({ logger, observer });
  const audit = createAuditTrail({ store, logger, observer });
  budgets.start();
  audit.start();
  const stopPruning =
    options.auditRetentionDays === null
      ? () => Promise.resolve()
      : startAuditPruning(store, options.auditRetentionDays, logger);
  let stopping: Promise<void> | null = null;
  return {
    budgets,
    enumeration,
    audit,
    stop() {
      stopping ??= (async () => {
        await stopPruning();
        // Independent of each other; both need the store still open.
        await Promise.all([audit.stop(), budgets.stop()]);
      })();
      return stopping;
    },
  };
}
