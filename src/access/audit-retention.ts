// Keeps the audit trail from growing without end: entries are deleted
// AUDIT_RETENTION_DAYS after they were recorded, on the outbox retention's
// schedule (src/shared/pruning-schedule.ts). Every server process does it;
// a delete that another node already made finds nothing.
import {
  PRUNE_FIRST_DELAY_MS,
  PRUNE_INTERVAL_MS,
  startPruningSchedule,
  type PruningSchedule,
} from '../shared/pruning-schedule';
import type { Logger } from '../log';

export interface AuditPruningStore {
  pruneAuditEntries(before: string, signal?: AbortSignal): Promise<number>;
}

const DAY_MS = 86_400_000;
export const DEFAULT_AUDIT_RETENTION_DAYS = 90;

/** One pass: deletes entries recorded more than `days` before `now`; logs how many. */
export async function pruneAuditOnce(
  store: AuditPruningStore,
  days: number,
  now: Date,
  logger: Logger,
  signal?: AbortSignal,
): Promise<number> {
  const before = new Date(now.getTime() - days * DAY_MS).toISOString();
  const deleted = await store.pruneAuditEntries(before, signal);
  if (deleted > 0) logger.info({ deleted, before }, 'audit trail pruned');
  return deleted;
}

/** Runs pruneAuditOnce on a schedule; the returned function stops it (and waits for a pass under way). */
export function startAuditPruning(
  store: AuditPruningStore,
  days: number,
  logger: Logger,
  now: () => Date = () => new Date(),
  schedule: PruningSchedule = { firstDelayMs: PRUNE_FIRST_DELAY_MS, intervalMs: PRUNE_INTERVAL_MS },
): () => Promise<void> {
  return startPruningSchedule(
    (signal) => pruneAuditOnce(store, days, now(), logger, signal),
    (error) => logger.warn({ err: error }, 'audit trail pruning failed; the next pass tries again'),
    schedule,
  );
}
