import { freshStorePerTest, storeVariants } from '../support/stores';
import { STORE_FIXTURE } from './store-fixture';

interface NoteMark {
  id: string;
  state: string;
  read_at: string | null;
}
interface AbsenceMark {
  id: string;
  seen: number;
  seen_at: string | null;
}

describe.each(storeVariants())('transactions on $name', (variant) => {
  const fresh = freshStorePerTest(variant, {
    seed: async (c, clock) => {
      await c.store.dataSet.writeDataSet(STORE_FIXTURE);
      clock.set('2030-02-02T10:00:00.000Z');
    },
  });
  const { clock } = fresh;

  const noteMarks = (studentId: string) =>
    fresh.ctx.query<NoteMark>('select id, state, read_at from notes where student_id = ? order by id', [studentId]);
  const absenceMarks = () => fresh.ctx.query<AbsenceMark>('select id, seen, seen_at from absences order by id');

  describe('markNotesRead', () => {
    it('returns all notes of that type, newest first, in their new state', async () => {
      const notes = await fresh.ctx.store.records.markNotesRead('1002', 'behaviour');
      expect(notes.map((n) => [n.id, n.state])).toEqual([
        ['n-6', 'read'],
        ['n-7', 'read'],
      ]);
      expect(notes[0]).toMatchObject({
        studentId: '1002',
        type: 'behaviour',
        subjectId: 'MATH',
        classId: '7A',
        badge: null,
      });
    });

    it('persists the read state and time for the unread notes only', async () => {
      await fresh.ctx.store.records.markNotesRead('1002', 'behaviour');
      expect(await noteMarks('1002')).toEqual([
        { id: 'n-1', state: 'unread', read_at: null },
        { id: 'n-4', state: 'unread', read_at: null },
        { id: 'n-5', state: 'unread', read_at: null },
        { id: 'n-6', state: 'read', read_at: '2030-02-02T10:00:00.000Z' },
        // Read at import time; marking again does not move the time.
        { id: 'n-7', state: 'read', read_at: '2030-01-01T00:00:00.000Z' },
        { id: 'n-9', state: 'unread', read_at: null },
      ]);
      // Another student's note of the same type is untouched.
      expect(await noteMarks('1003')).toContainEqual({ id: 'n-8', state: 'unread', read_at: null });
    });

    it('is stable when repeated', async () => {
      const first = await fresh.ctx.store.records.markNotesRead('1002', 'audit');
      clock.set('2030-03-03T00:00:00.000Z');
      const second = await fresh.ctx.store.records.markNotesRead('1002', 'audit');
      expect(second).toEqual(first);
      expect(first.map((n) => n.id)).toEqual(['n-5', 'n-4', 'n-1', 'n-9']);
      expect((await noteMarks('1002')).find((n) => n.id === 'n-1')?.read_at).toBe('2030-02-02T10:00:00.000Z');
    });

    it('answers an empty list for an unknown student or type', async () => {
      expect(await fresh.ctx.store.records.markNotesRead('9999', 'audit')).toEqual([]);
      expect(await fresh.ctx.store.records.markNotesRead('1002', 'general')).toEqual([]);
      expect(await fresh.ctx.store.records.markNotesRead('1002', 'AUDIT')).toEqual([]);
    });
  });

  describe('listAbsencesMarkSeen', () => {
    it('returns the absences newest first as they were before marking', async () => {
      const absences = await fresh.ctx.store.records.listAbsencesMarkSeen('1002');
      expect(absences).toEqual([
        { id: 'a-2', studentId: '1002', date: '2025-10-09', type: 'late', reason: null, seen: false },
        { id: 'a-3', studentId: '1002', date: '2025-10-09', type: 'early-leave', reason: 'Dentist', seen: true },
        { id: 'a-1', studentId: '1002', date: '2025-10-02', type: 'full-day', reason: 'مريض', seen: false },
      ]);
    });

    it('persists seen and the time for the unseen ones, and shows them seen next time', async () => {
      await fresh.ctx.store.records.listAbsencesMarkSeen('1002');
      expect((await absenceMarks()).map((a) => ({ ...a, seen: Number(a.seen) }))).toEqual([
        { id: 'a-1', seen: 1, seen_at: '2030-02-02T10:00:00.000Z' },
        { id: 'a-2', seen: 1, seen_at: '2030-02-02T10:00:00.000Z' },
        { id: 'a-3', seen: 1, seen_at: '2030-01-01T00:00:00.000Z' },
        { id: 'a-4', seen: 0, seen_at: null },
      ]);
      const again = await fresh.ctx.store.records.listAbsencesMarkSeen('1002');
      expect(again.map((a) => [a.id, a.seen])).toEqual([
        ['a-2', true],
        ['a-3', true],
        ['a-1', true],
      ]);
    });

    it('answers an empty list for an unknown student', async () => {
      expect(await fresh.ctx.store.records.listAbsencesMarkSeen('9999')).toEqual([]);
    });
  });

  it('keeps concurrent transactions consistent', async () => {
    const calls = await Promise.all([
      ...Array.from({ length: 8 }, () => fresh.ctx.store.records.listAbsencesMarkSeen('1002')),
      ...Array.from({ length: 8 }, () => fresh.ctx.store.records.markNotesRead('1002', 'audit')),
      ...Array.from({ length: 8 }, () => fresh.ctx.store.records.getDeviceToken('dev-1')),
    ]);
    // Exactly one call saw each absence unseen: the marking is atomic with the read.
    const sawUnseen = calls
      .slice(0, 8)
      .flat()
      .filter((a) => typeof a === 'object' && a !== null && 'seen' in a && !a.seen)
      .map((a) => (a as { id: string }).id);
    expect(sawUnseen.sort()).toEqual(['a-1', 'a-2']);
    expect(calls.slice(16)).toEqual(Array(8).fill('tok-1'));
    expect((await absenceMarks()).filter((a) => Number(a.seen) === 1)).toHaveLength(3);
  });
});
