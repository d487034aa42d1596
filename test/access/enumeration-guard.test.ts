// The enumeration guard: the same few subjects are never refused, walking
// through ids is once past max (warned once per caller per window, without
// the ids), and memory stays within its caps.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createEnumerationGuard } from '../../src/access/enumeration-guard';
import { capturingLogger } from '../support/logs';
import { countingObserver } from './support';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const HOUR = 3_600_000;
const rule = { max: 5, windowMs: HOUR };
const OP = 'PushNotificationMobile.asmx/GetTokenDevice';

function guard(options: { maxCallers?: number; maxSubjectsPerCaller?: number; maxTrackedSubjects?: number } = {}) {
  const { lines, logger } = capturingLogger();
  const { counts, observer } = countingObserver();
  return { lines, counts, guard: createEnumerationGuard({ logger, observer, ...options }) };
}

describe('enumeration guard', () => {
  it('never refuses a caller reading the same few subjects, however often', () => {
    const { guard: g, lines } = guard();
    for (let i = 0; i < 10_000; i++) expect(g.note(OP, '10.0.0.1', `stu-${i % 5}`, rule, T0 + i).ok).toBe(true);
    expect(lines).toEqual([]);
  });

  it('refuses a caller walking through ids once past max distinct, until the window ends, and still serves those already read', () => {
    const { guard: g, counts } = guard();
    for (let i = 1; i <= 5; i++) expect(g.note(OP, '10.0.0.1', `${1000 + i}`, rule, T0).ok).toBe(true);
    expect(g.note(OP, '10.0.0.1', '1006', rule, T0 + 60_000)).toEqual({ ok: false, retryAfterSeconds: 3540 });
    expect(g.note(OP, '10.0.0.1', '1007', rule, T0 + 60_000).ok).toBe(false);
    expect(g.note(OP, '10.0.0.1', '1003', rule, T0 + 60_000).ok).toBe(true);
    // Others are not affected.
    expect(g.note(OP, '10.0.0.2', '1006', rule, T0).ok).toBe(true);
    // The next window starts afresh.
    expect(g.note(OP, '10.0.0.1', '1006', rule, T0 + HOUR).ok).toBe(true);
    expect(counts.refused).toEqual(['enumeration', 'enumeration']);
  });

  it('logs at warn once per caller per window, naming the caller and never the ids', () => {
    const { guard: g, lines } = guard();
    for (let i = 0; i < 50; i++) g.note(OP, 'sis-alnoor', `secret-id-${i}`, rule, T0 + i);
    for (let i = 0; i < 50; i++) g.note(OP, 'sis-alnoor', `secret-id-${100 + i}`, rule, T0 + HOUR + i);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      level: 40,
      caller: 'sis-alnoor',
      max: 5,
      windowSeconds: 3600,
      msg: expect.stringContaining('too many distinct subjects'),
    });
    expect(JSON.stringify(lines)).not.toContain('secret-id');
  });

  it('keeps at most maxCallers callers, forgetting those not seen for a while', () => {
    const { guard: g, counts } = guard({ maxCallers: 100 });
    for (let i = 0; i < 1000; i++) {
      g.note(OP, `10.1.${i >> 8}.${i & 255}`, 'stu-1', rule, T0);
      expect(g.callers).toBeLessThanOrEqual(100);
    }
    expect(counts.evicted.enumeration + g.callers).toBe(1000);
    expect(g.trackedSubjects).toBe(g.callers);
  });

  it('forgets a walker only after many other callers, never while it keeps reading', () => {
    const { guard: g } = guard({ maxCallers: 10 });
    for (let i = 1; i <= 5; i++) g.note(OP, 'walker', `${i}`, rule, T0);
    for (let i = 0; i < 100; i++) {
      g.note(OP, `other-${i}`, 'stu-1', rule, T0);
      expect(g.note(OP, 'walker', `${1000 + i}`, rule, T0).ok).toBe(false);
    }
  });

  it('keeps at most maxSubjectsPerCaller ids per caller, counting further new ones without keeping them', () => {
    const { guard: g } = guard({ maxSubjectsPerCaller: 3 });
    const big = { max: 6, windowMs: HOUR };
    for (const id of ['a', 'b', 'c', 'd', 'e', 'f']) expect(g.note(OP, 'x', id, big, T0).ok).toBe(true);
    expect(g.trackedSubjects).toBe(3);
    expect(g.note(OP, 'x', 'g', big, T0).ok).toBe(false);
    // Kept ids are still served; one counted past the cap is not known again (refused early, never late).
    expect(g.note(OP, 'x', 'a', big, T0).ok).toBe(true);
    expect(g.note(OP, 'x', 'd', big, T0).ok).toBe(false);
  });

  it('keeps about maxTrackedSubjects ids in all, forgetting the callers not seen for the longest', () => {
    const { guard: g } = guard({ maxTrackedSubjects: 20 });
    const wide = { max: 1000, windowMs: HOUR };
    for (let c = 0; c < 10; c++)
      for (let s = 0; s < 5; s++) {
        g.note(OP, `caller-${c}`, `stu-${s}`, wide, T0);
        expect(g.trackedSubjects).toBeLessThanOrEqual(21);
      }
    expect(g.callers).toBeLessThan(10);
    // The caller reading now keeps its set: its walk is still counted.
    for (let s = 0; s < 50; s++) g.note(OP, 'walker', `stu-${s}`, rule, T0);
    expect(g.note(OP, 'walker', 'stu-1', rule, T0).ok).toBe(true);
    expect(g.note(OP, 'walker', 'stu-99', rule, T0).ok).toBe(false);
  });

  it('counts each operation apart: reads of one never spend or pre-pay the budget of another', () => {
    const { guard: g } = guard();
    const absences = 'GetStudentsAbsence.asmx/GetStudentsAbcenceByID';
    const notes = 'ReadNoteFromApp.asmx/UpdateNoteState';
    const small = { max: 2, windowMs: HOUR };
    for (let i = 1; i <= 5; i++)
      expect(g.note(absences, 'caller', `${1000 + i}`, { max: 50, windowMs: HOUR }, T0).ok).toBe(true);
    // Same window length, other operation: a fresh budget, and ids read by the other operation are new here.
    expect(g.note(notes, 'caller', '1001', small, T0).ok).toBe(true);
    expect(g.note(notes, 'caller', '1002', small, T0).ok).toBe(true);
    expect(g.note(notes, 'caller', '1003', small, T0).ok).toBe(false);
    expect(g.note(absences, 'caller', '1006', { max: 50, windowMs: HOUR }, T0).ok).toBe(true);
  });

  // 300 calls with 1 MB ids once held about 390 MB for good: the guard kept the ids themselves.
  it('keeps a fixed-size digest of each id, not the id: a million-character id costs no more than a short one', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const { guard: g } = guard();
    const wide = { max: 1000, windowMs: HOUR };
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 200; i++)
      expect(g.note(OP, `10.0.0.${i % 30}`, `${i}`.padEnd(1_000_000, 'x'), wide, T0).ok).toBe(true);
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    // 200 MB if the ids were kept; a few kilobytes of digests and walks otherwise.
    expect(grown).toBeLessThan(20 * 1024 * 1024);
    expect(g.trackedSubjects).toBe(200);
    // Still told apart: each is known again, and a new one counts.
    expect(g.note(OP, '10.0.0.0', '0'.padEnd(1_000_000, 'x'), { max: 7, windowMs: HOUR }, T0).ok).toBe(true);
    expect(g.note(OP, '10.0.0.0', 'new'.padEnd(1_000_000, 'x'), { max: 7, windowMs: HOUR }, T0).ok).toBe(false);
  });
});
