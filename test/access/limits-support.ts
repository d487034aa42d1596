// Shared by the access tests: a logger whose lines are kept, and an observer
// that counts what access control reports.
import pino from 'pino';
import type { AccessObserver, RefusalReason } from '../../src/access/observer';
import type { AuditEntry } from '../../src/access/contracts';

export function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  return { lines, logger: pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) }) };
}

export function countingObserver() {
  const counts = { audited: [] as AuditEntry[], refused: [] as RefusalReason[], dropped: 0, writeFailures: 0, syncFailures: 0, evicted: { budget: 0, enumeration: 0 } };
  const observer: AccessObserver = {
    audited: (entry) => void counts.audited.push(entry),
    refused: (reason) => void counts.refused.push(reason),
    auditDropped: (n) => void (counts.dropped += n),
    auditWriteFailed: () => void counts.writeFailures++,
    budgetSyncFailed: () => void counts.syncFailures++,
    evicted: (what, n) => void (counts.evicted[what] += n),
  };
  return { counts, observer };
}
