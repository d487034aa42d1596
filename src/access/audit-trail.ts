// The audit trail of reads of personal data (docs/access-limits.md): who (address,
// user), which operation, which student or school, when, allowed or refused.
//
// record() never waits and never throws: entries go to a buffer that is
// written in batches, one insert per batch, every `flushIntervalMs` or as soon
// as `batchSize` entries are waiting. When the store cannot take them they
// stay buffered and are tried again at the next flush; past `maxBuffered`
// new entries are dropped, counted (metrics) and reported at warn, so that a
// store outage costs audit entries, never calls or memory.
import type { Logger } from '../log';
import type { NewAuditRow } from '../store';
import type { AuditEntry, AuditTrail } from './contracts';
import { SILENT_ACCESS_OBSERVER, type AccessObserver } from './observer';

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
}

export interface BufferedAuditTrail extends AuditTrail {
  /** Flushes on the interval until stop(). */
  start(): void;
  /** Entries waiting to be written. */
  readonly buffered: number;
  /** Entries dropped since start because the buffer was full. */
  readonly dropped: number;
}

export const DEFAULT_AUDIT_FLUSH_MS = 1000;
export const DEFAULT_AUDIT_BATCH = 500;
export const DEFAULT_AUDIT_BUFFER = 20_000;

function toRow(entry: AuditEntry): NewAuditRow {
  const at = Number.isNaN(entry.at.getTime()) ? new Date() : entry.at;
  return {
    at: at.toISOString(),
    address: entry.address,
    user: entry.user,
    endpoint: entry.endpoint,
    operation: entry.operation,
    subjectKind: entry.subjectKind,
    subject: entry.subject,
    outcome: entry.outcome,
    reason: entry.reason,
  };
}

export function createAuditTrail(options: AuditTrailOptions): BufferedAuditTrail {
  const { store, logger } = options;
  const observer = options.observer ?? SILENT_ACCESS_OBSERVER;
  const intervalMs = options.flushIntervalMs ?? DEFAULT_AUDIT_FLUSH_MS;
  const batchSize = Math.max(1, options.batchSize ?? DEFAULT_AUDIT_BATCH);
  const maxBuffered = Math.max(batchSize, options.maxBuffered ?? DEFAULT_AUDIT_BUFFER);
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
        if (!failing) logger.warn({ err: error, buffered: buffer.length }, 'audit trail: the store did not take the entries; they are kept and tried again');
        failing = true;
        return;
      }
      buffer = buffer.slice(batch.length);
      if (failing) logger.info({ dropped: droppedInOutage }, 'audit trail: the store takes entries again');
      failing = false;
      droppedInOutage = 0;
    }
  };

  const flush = (): Promise<void> => {
    // One writer at a time; a flush asked for during one runs after it.
    const next = (flushing ?? Promise.resolve()).then(writeAll).catch((error: unknown) => logger.warn({ err: error }, 'audit trail: flush failed'));
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
    record(entry) {
      try {
        observer.audited(entry);
        if (buffer.length >= maxBuffered) {
          drop(1);
          return;
        }
        buffer.push(toRow(entry));
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
        if (buffer.length > 0 && flushing === null) void flush();
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await flush();
      if (buffer.length > 0) logger.warn({ lost: buffer.length }, 'audit trail: stopped with entries the store did not take');
    },
  };
}
