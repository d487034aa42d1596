// Keeps the outbox from growing without end: messages that are finished
// (sent, or dead) are deleted OUTBOX_RETENTION_DAYS after their last change.
// Every worker process does it on its own schedule; a delete that another
// worker already made simply finds nothing.
import type { Logger } from '../log';
import {
  PRUNE_FIRST_DELAY_MS,
  PRUNE_INTERVAL_MS,
  startPruningSchedule,
  type PruningSchedule,
} from '../shared/pruning-schedule';
import type { AuthCodeLimit, OutboxChannel } from '../store';

export interface PruningStore {
  pruneOutbox(before: string, signal?: AbortSignal): Promise<Readonly<Record<OutboxChannel, number>>>;
  /** Delivered events to the schools' systems (docs/delivery.md#delivery-events); absent: none kept. */
  pruneEvents?(before: string, signal?: AbortSignal): Promise<number>;
  /** Refused SendNotificationType and AuthCode calls (docs/console.md#refused-calls); absent: none kept. */
  pruneRefusedCalls?(before: string, signal?: AbortSignal): Promise<number>;
}

const DAY_MS = 86_400_000;
/** The longest retention any setting or `--days` accepts. */
export const MAX_RETENTION_DAYS = 3650;

/** `text` as a retention in whole days (1 to 3650), or null when it is not one. */
export function parseRetentionDays(text: string): number | null {
  return /^[0-9]{1,4}$/.test(text) && Number(text) >= 1 && Number(text) <= MAX_RETENTION_DAYS ? Number(text) : null;
}

/**
 * The longest AuthCode limit window, in seconds, when a retention of `days`
 * would not cover it, else null: the limits count the codes of their window
 * in the outbox, so pruning them sooner would loosen the limits.
 */
export function uncoveredLimitWindow(days: number, limits: readonly AuthCodeLimit[]): number | null {
  const longest = Math.max(0, ...limits.map((limit) => limit.windowSeconds));
  return days * (DAY_MS / 1000) < longest ? longest : null;
}
/** One pass: deletes what finished more than `days` ago; logs what it deleted. */
export async function pruneOutboxOnce(
  store: PruningStore,
  days: number,
  now: Date,
  logger: Logger,
  signal?: AbortSignal,
): Promise<Readonly<Record<OutboxChannel, number>>> {
  const before = new Date(now.getTime() - days * DAY_MS).toISOString();
  const deleted = await store.pruneOutbox(before, signal);
  if (deleted.push + deleted.sms > 0) logger.info({ deleted, before }, 'outbox pruned');
  const events = (await store.pruneEvents?.(before, signal)) ?? 0;
  if (events > 0) logger.info({ deleted: events, before }, 'delivered events pruned');
  const refused = (await store.pruneRefusedCalls?.(before, signal)) ?? 0;
  if (refused > 0) logger.info({ deleted: refused, before }, 'refused calls pruned');
  return deleted;
}

/**
 * Runs pruneOutboxOnce on a schedule until the returned function is called,
 * which also ends a pass under way (between two batches) and resolves once it
 * has: the store may then close. A failed pass is logged and the next one
 * tries again.
 */
export function startOutboxPruning(
  store: PruningStore,
  days: number,
  logger: Logger,
  now: () => Date,
  schedule: PruningSchedule = { firstDelayMs: PRUNE_FIRST_DELAY_MS, intervalMs: PRUNE_INTERVAL_MS },
): () => Promise<void> {
  return startPruningSchedule(
    (signal) => pruneOutboxOnce(store, days, now(), logger, signal),
    (error) => logger.warn({ err: error }, 'outbox pruning failed; the next pass tries again'),
    schedule,
  );
}
