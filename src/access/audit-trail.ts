// The audit trail of reads of personal data (docs/access-limits.md): who (address,
// user), which operation, which student or school, when, allowed or refused.
//
// record() never waits and never throws: entries go to a buffer that is
// written in batches, one insert per batch, every `flushIntervalMs` or as soon
// as `batchSize` entries are waiting. When the store cannot take them they
// stay buffered and are tried again at the next flush; past `maxBuffered`
// new entries are dropped, counted (metrics) and reported at warn, so that a
// store outage costs audit entries, never calls or memory.
//
// What an entry keeps is bounded (audit-bounds.ts: a subject longer than any
// valid id is kept cut, with its length and hash), and so is how many
// refusals of one caller are kept one by one (refusal-allowance.ts: past the
// allowance they are counted into one summary entry per caller and minute),
// so that refused calls cannot fill the store (docs/access-limits.md#audit-trail).
import type { Logger } from '../log';
import type { NewAuditRow } from '../store';
import type { AuditEntry, AuditTrail } from './contracts';
import { AUDIT_ADDRESS_MAX, AUDIT_USER_MAX, cutOrNull, keptSubject } from './audit-bounds';
import { SILENT_ACCESS_OBSERVER, type AccessObserver } from './observer';
import { createRefusalAllowance, type RefusalAllowanceOptions, type RefusalSummary } from './refusal-allowance';

/** What the audit trail needs of the store (the opened store has it). */
export interface AuditSink {
  insertAuditEntries(entries: readonly NewAuditRow[]): Promise<void>;
}

export interface AuditTrailOptions {
  readonly store: AuditSink;
  readonly logger: Logger;
  readonly observer?: AccessObserver;
  readonly flushIntervalMs?: number;
  /** Entries per insert, and how many waiting start a flush at once. */
  readonly batchSize?: number;
  /** Most entries held while the store cannot take them. */
  readonly maxBuffered?: number;
  /** Refusals kept one by one per caller and window, and how many callers are tracked. */
  readonly refusals?: RefusalAllowanceOptions;
  readonly now?: () => number;
}

export interface BufferedAuditTrail extends AuditTrail {
  /** Flushes on the interval until stop(). */
  start(): void;
  /** Entries waiting to be written. */
  readonly buffered: number;
  /** Entries dropped since start because the buffer was full. */
  readonly dropped: number;
  /** Callers whose refusals are being counted (bounded). */
  readonly trackedRefusers: number;
}

export const DEFAULT_AUDIT_FLUSH_MS = 1000;
export const DEFAULT_AUDIT_BATCH = 500;
export const DEFAULT_AUDIT_BUFFER = 20_000;

/** The reason of a summary entry (refusal-allowance.ts). */
export const SUMMARY_REASON = 'summary';

const isoTime = (at: Date): string => (Number.isNaN(at.getTime()) ? new Date() : at).toISOString();

function toRow(entry: AuditEntry): NewAuditRow {
  return {
    at: isoTime(entry.at),
    address: cutOrNull(entry.address, AUDIT_ADDRESS_MAX),
    user: cutOrNull(entry.user, AUDIT_USER_MAX),
    endpoint: entry.endpoint,
    operation: entry.operation,
    subjectKind: entry.subjectKind,
    ...keptSubject(entry.subjectKind, entry.subject),
    outcome: entry.outcome,
    reason: entry.reason,
    omitted: null,
  };
}

function summaryRow(summary: RefusalSummary): NewAuditRow {
  return {
    at: isoTime(summary.at),
    address: summary.address,
    user: summary.user,
    endpoint: summary.endpoint,
    operation: summary.operation,
    subjectKind: summary.subjectKind,
    subject: null,
    subjectLength: null,
    subjectSha256: null,
    outcome: 'refused',
    reason: SUMMARY_REASON,
    omitted: summary.omitted,
  };
}

export function createAuditTrail(options: AuditTrailOptions): BufferedAuditTrail {
  const { store, logger } = options;
  const observer = options.observer ?? SILENT_ACCESS_OBSERVER;
  const intervalMs = options.flushIntervalMs ?? DEFAULT_AUDIT_FLUSH_MS;
  const batchSize = Math.max(1, options.batchSize ?? DEFAULT_AUDIT_BATCH);
  const maxBuffered = Math.max(batchSize, options.maxBuffered ?? DEFAULT_AUDIT_BUFFER);
  const now = options.now ?? Date.now;
  const refusals = createRefusalAllowance(options.refusals);
  let buffer: NewAuditRow[] = [];
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> | null = null;
  let failing = false;
  let dropped = 0;
  // Dropped since the last warning, reported when the store takes entries again.
  let droppedInOutage = 0;

  const drop = (count: number) => {
    if (count <= 0) return;
    dropped += count;
    observer.auditDropped(count);
    if (droppedInOutage === 0) {
      logger.warn(
        { maxBuffered },
        'audit trail: buffer full while the store cannot take entries; new entries are dropped until it can (counted in access_audit_dropped_total)',
      );
    }
    droppedInOutage += count;
  };

  // Writes batches until the buffer is empty or the store fails.
  const writeAll = async (): Promise<void> => {
    while (buffer.length > 0) {
      const batch = buffer.slice(0, batchSize);
      try {
        await store.insertAuditEntries(batch);
      } catch (error) {
        observer.auditWriteFailed();
        if (!failing)
          logger.warn(
            { err: error, buffered: buffer.length },
            'audit trail: the store did not take the entries; they are kept and tried again',
          );
        failing = true;
        return;
      }
      buffer = buffer.slice(batch.length);
      if (failing) logger.info({ dropped: droppedInOutage }, 'audit trail: the store takes entries again');
      failing = false;
      droppedInOutage = 0;
    }
  };

  const add = (row: NewAuditRow) => {
    if (buffer.length >= maxBuffered) {
      drop(1);
      return;
    }
    buffer.push(row);
  };
  // Summaries of the windows that ended by `nowMs` join the buffer.
  const addSummaries = (nowMs: number) => {
    for (const summary of refusals.takeSummaries(nowMs)) add(summaryRow(summary));
  };

  const flush = (): Promise<void> => {
    addSummaries(now());
    // One writer at a time; a flush asked for during one runs after it.
    const next = (flushing ?? Promise.resolve())
      .then(writeAll)
      .catch((error: unknown) => logger.warn({ err: error }, 'audit trail: flush failed'));
    flushing = next;
    void next.finally(() => {
      if (flushing === next) flushing = null;
    });
    return next;
  };

  return {
    get buffered() {
      return buffer.length;
    },
    get dropped() {
      return dropped;
    },
    get trackedRefusers() {
      return refusals.tracked;
    },
    record(entry) {
      try {
        observer.audited(entry);
        // Past its caller's allowance a refusal is only counted, before anything of it is copied or hashed.
        if (entry.outcome === 'refused' && !refusals.admit(entry)) return;
        add(toRow(entry));
        if (buffer.length >= batchSize && flushing === null && !failing) void flush();
      } catch (error) {
        // Never the call's problem.
        logger.warn({ err: error }, 'audit trail: an entry could not be recorded');
      }
    },
    flush,
    start() {
      if (timer !== undefined) return;
      timer = setInterval(() => {
        addSummaries(now());
        if (buffer.length > 0 && flushing === null) void flush();
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      // The windows under way too: nothing counted is lost at shutdown.
      addSummaries(Number.POSITIVE_INFINITY);
      await flush();
      if (buffer.length > 0)
        logger.warn({ lost: buffer.length }, 'audit trail: stopped with entries the store did not take');
    },
  };
}
