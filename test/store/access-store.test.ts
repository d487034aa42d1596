// The access tables of migration 0004 on every store variant: audit entries
// written in one statement, listed newest first with filters and paging,
// pruned by age; call-budget counters added to and read back per window.
import { createHash } from 'node:crypto';
import { counterTotalKey } from '../../src/store';
import { auditRow } from '../support/fixtures';
import { freshStorePerTest, storeVariants } from '../support/stores';

const entry = auditRow;

describe.each(storeVariants())('access tables on $name', (variant) => {
  const fresh = freshStorePerTest(variant);

  describe('audit trail', () => {
    const seed = async () => {
      await fresh.ctx.store.access.insertAuditEntries([
        entry('2030-01-01T10:00:00.000Z'),
        entry('2030-01-01T11:00:00.000Z', { subject: '1002', address: '10.0.0.2' }),
        entry('2030-01-01T12:00:00.000Z', {
          user: 'sis-alnoor',
          endpoint: 'PushNotificationMobile',
          operation: 'GetStudentSchool',
          subjectKind: 'school',
          subject: 'https://a.example',
        }),
        entry('2030-01-01T13:00:00.000Z', { outcome: 'refused', reason: 'limit', address: '10.0.0.2' }),
      ]);
    };

    it('writes a batch in one call and lists it newest first, with the total and every column', async () => {
      await seed();
      const page = await fresh.ctx.store.admin.listAuditEntries({ limit: 2, offset: 0 });
      expect(page.total).toBe(4);
      expect(page.items.map((e) => e.at)).toEqual(['2030-01-01T13:00:00.000Z', '2030-01-01T12:00:00.000Z']);
      expect(page.items[0]).toEqual({
        id: expect.any(String),
        ...entry('2030-01-01T13:00:00.000Z', { outcome: 'refused', reason: 'limit', address: '10.0.0.2' }),
      });
      const rest = await fresh.ctx.store.admin.listAuditEntries({ limit: 2, offset: 2 });
      expect(rest.items.map((e) => e.at)).toEqual(['2030-01-01T11:00:00.000Z', '2030-01-01T10:00:00.000Z']);
    });

    it('filters by time range (from inclusive, to exclusive) and by each field', async () => {
      await seed();
      const ats = async (query: object) =>
        (await fresh.ctx.store.admin.listAuditEntries({ limit: 10, offset: 0, ...query })).items.map((e) =>
          e.at.slice(11, 13),
        );
      expect(await ats({ from: '2030-01-01T11:00:00.000Z', to: '2030-01-01T13:00:00.000Z' })).toEqual(['12', '11']);
      expect(await ats({ address: '10.0.0.2' })).toEqual(['13', '11']);
      expect(await ats({ user: 'sis-alnoor' })).toEqual(['12']);
      expect(await ats({ endpoint: 'PushNotificationMobile' })).toEqual(['12']);
      expect(await ats({ operation: 'GetStudentsAbcenceByID', outcome: 'allowed' })).toEqual(['11', '10']);
      expect(await ats({ outcome: 'refused' })).toEqual(['13']);
      expect(await ats({ subject: '1001' })).toEqual(['13', '10']);
      expect((await fresh.ctx.store.admin.listAuditEntries({ subject: 'nobody', limit: 10, offset: 0 })).total).toBe(0);
    });

    it('prunes entries older than the cut-off, in batches, and keeps the rest', async () => {
      await seed();
      expect(await fresh.ctx.store.access.pruneAuditEntries('2030-01-01T12:00:00.000Z')).toBe(2);
      expect((await fresh.ctx.store.admin.listAuditEntries({ limit: 10, offset: 0 })).items.map((e) => e.at)).toEqual([
        '2030-01-01T13:00:00.000Z',
        '2030-01-01T12:00:00.000Z',
      ]);
      const many = Array.from({ length: 1200 }, (_, i) => entry(new Date(Date.UTC(2029, 0, 1, 0, 0, i)).toISOString()));
      await fresh.ctx.store.access.insertAuditEntries(many.slice(0, 500));
      await fresh.ctx.store.access.insertAuditEntries(many.slice(500));
      expect(await fresh.ctx.store.access.pruneAuditEntries('2030-01-01T00:00:00.000Z')).toBe(1200);
      expect((await fresh.ctx.store.admin.listAuditEntries({ limit: 1, offset: 0 })).total).toBe(2);
    });

    it('stops pruning between batches once aborted', async () => {
      await fresh.ctx.store.access.insertAuditEntries(
        Array.from({ length: 10 }, (_, i) => entry(`2029-01-01T00:00:0${i}.000Z`)),
      );
      const stopped = new AbortController();
      stopped.abort();
      expect(await fresh.ctx.store.access.pruneAuditEntries('2030-01-01T00:00:00.000Z', stopped.signal)).toBe(0);
      expect((await fresh.ctx.store.admin.listAuditEntries({ limit: 1, offset: 0 })).total).toBe(10);
    });
  });

  describe('migration 0006: subjects kept cut', () => {
    const full = (kind: string, n: number) => `${kind}-${'9'.repeat(n)}`;
    const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

    it('adds the length, hash and summary columns, and cuts the long subjects written before it, of every kind', async () => {
      const ctx = fresh.ctx;
      const long = {
        // Long enough to cut, short enough for PostgreSQL's index on the subject to take it before 0006.
        device: full('device', 5000),
        student: full('student', 200),
        school: full('https://school.example/', 600),
        class: full('class', 100),
        none: full('none', 700),
      };
      await ctx.store.access.insertAuditEntries([
        entry('2030-01-01T10:00:00.000Z', {
          subjectKind: 'device',
          subject: 'a'.repeat(128),
          address: '1'.repeat(100),
          user: 'u'.repeat(70),
        }),
      ]);
      await ctx.store.lifecycle.close();
      // The schema as it was before 0006, with entries written whole.
      await ctx.migrateDownTo('0005_outbox_indexes');
      let n = 0;
      for (const [kind, subject] of Object.entries(long)) {
        await ctx.query(
          "insert into access_audit (id, at, address, endpoint, operation, subject_kind, subject, outcome) values (?, ?, '10.0.0.1', 'E', 'Op', ?, ?, 'refused')",
          [`old-${kind}`, `2030-01-01T11:00:0${n++}.000Z`, kind === 'none' ? null : kind, subject],
        );
      }
      const store = await ctx.reopen();
      expect((await store.lifecycle.migrationStatus()).current).toBe(true);
      const page = await store.admin.listAuditEntries({ limit: 10, offset: 0 });
      const byId = new Map(page.items.map((item) => [item.id, item]));
      const max: Record<string, number> = { device: 128, student: 128, school: 512, class: 64, none: 512 };
      for (const [kind, subject] of Object.entries(long)) {
        expect(byId.get(`old-${kind}`)).toMatchObject({
          subject: subject.slice(0, max[kind]),
          subjectLength: subject.length,
          subjectSha256: sha256(subject),
          omitted: null,
        });
      }
      // An id of the longest valid length stays whole; a long address and user are cut without a hash.
      expect(page.items.find((item) => item.at === '2030-01-01T10:00:00.000Z')).toMatchObject({
        subject: 'a'.repeat(128),
        subjectLength: null,
        subjectSha256: null,
        address: '1'.repeat(64),
        user: 'u'.repeat(64),
      });
    });

    it('keeps the new columns of a summary entry', async () => {
      await fresh.ctx.store.access.insertAuditEntries([
        entry('2030-01-01T10:00:00.000Z', { outcome: 'refused', reason: 'summary', subject: null, omitted: 940 }),
        entry('2030-01-01T10:00:01.000Z', {
          outcome: 'refused',
          reason: 'limit',
          subject: 'x'.repeat(128),
          subjectLength: 1_000_000,
          subjectSha256: 'ab'.repeat(32),
        }),
      ]);
      const page = await fresh.ctx.store.admin.listAuditEntries({ limit: 10, offset: 0 });
      expect(page.items.map((item) => [item.omitted, item.subjectLength, item.subjectSha256])).toEqual([
        [null, 1_000_000, 'ab'.repeat(32)],
        [940, null, null],
      ]);
    });
  });

  describe('call-budget counters', () => {
    const w1 = { counter: '60000|E/Op|10.0.0.1', windowStart: '2030-01-01T00:00:00.000Z' };
    const w2 = { counter: '60000|E/Op|10.0.0.2', windowStart: '2030-01-01T00:00:00.000Z' };
    const end = '2030-01-01T00:01:00.000Z';

    it('adds each merge to the window total and reads back the windows asked for', async () => {
      const first = await fresh.ctx.store.access.mergeAccessCounters({
        deltas: [{ ...w1, windowEnd: end, delta: 3 }],
        reads: [w2],
      });
      expect(first.get(counterTotalKey(w1))).toBe(3);
      expect(first.has(counterTotalKey(w2))).toBe(false);
      const second = await fresh.ctx.store.access.mergeAccessCounters({
        deltas: [
          { ...w2, windowEnd: end, delta: 2 },
          { ...w1, windowEnd: end, delta: 4 },
        ],
        reads: [],
      });
      expect(second.get(counterTotalKey(w1))).toBe(7);
      expect(second.get(counterTotalKey(w2))).toBe(2);
      // Another window of the same counter is its own total.
      const next = { counter: w1.counter, windowStart: end };
      const third = await fresh.ctx.store.access.mergeAccessCounters({
        deltas: [{ ...next, windowEnd: '2030-01-01T00:02:00.000Z', delta: 1 }],
        reads: [w1],
      });
      expect(third.get(counterTotalKey(next))).toBe(1);
      expect(third.get(counterTotalKey(w1))).toBe(7);
    });

    it('merges many counters at once', async () => {
      const deltas = Array.from({ length: 1300 }, (_, i) => ({
        counter: `60000|E/Op|caller-${i}`,
        windowStart: w1.windowStart,
        windowEnd: end,
        delta: i + 1,
      }));
      await fresh.ctx.store.access.mergeAccessCounters({ deltas, reads: [] });
      const totals = await fresh.ctx.store.access.mergeAccessCounters({ deltas: [], reads: deltas });
      expect(totals.size).toBe(1300);
      expect(totals.get(counterTotalKey(deltas[1299]))).toBe(1300);
    });

    it('prunes the rows of windows that ended before the cut-off', async () => {
      await fresh.ctx.store.access.mergeAccessCounters({
        deltas: [
          { ...w1, windowEnd: end, delta: 1 },
          { counter: w2.counter, windowStart: end, windowEnd: '2030-01-01T00:02:00.000Z', delta: 1 },
        ],
        reads: [],
      });
      expect(await fresh.ctx.store.access.pruneAccessCounters('2030-01-01T00:01:30.000Z')).toBe(1);
      expect(await fresh.ctx.query('select counter from access_counters')).toEqual([{ counter: w2.counter }]);
    });

    it('prunes every expired row, not just one batch of them', async () => {
      const deltas = Array.from({ length: 1300 }, (_, i) => ({
        counter: `60000|E/Op|caller-${i}`,
        windowStart: w1.windowStart,
        windowEnd: end,
        delta: 1,
      }));
      await fresh.ctx.store.access.mergeAccessCounters({ deltas, reads: [] });
      expect(await fresh.ctx.store.access.pruneAccessCounters('2030-01-01T00:01:30.000Z')).toBe(1300);
      expect(Number((await fresh.ctx.query<{ n: unknown }>('select count(*) as n from access_counters'))[0].n)).toBe(0);
    });
  });
});
