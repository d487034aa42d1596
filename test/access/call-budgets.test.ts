// Call budgets: the COUNT/DURATION syntax, fixed windows and their edges,
// bounded memory, and several nodes merged through a real PostgreSQL store
// with the documented overshoot bound (docs/access-limits.md#call-budgets).
import fc from 'fast-check';
import { createCallBudgets, type BudgetStore } from '../../src/access/call-budgets';
import { parseRate } from '../../src/access';
import { parseLimits } from '../../src/delivery/config/limit-syntax';
import { describeWithPostgres, postgresVariant, type TestStore, sqliteVariant } from '../support/stores';
import { capturingLogger } from '../support/logs';
import { countingObserver } from './support';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const MINUTE = 60_000;

describe('the COUNT/DURATION budgets (parseRate)', () => {
  it('reads COUNT/DURATION in s, m, h, d', () => {
    expect(parseRate('120/1m')).toEqual({ max: 120, windowMs: 60_000 });
    expect(parseRate('30/1h')).toEqual({ max: 30, windowMs: 3_600_000 });
    expect(parseRate(' 5 / 10S ')).toEqual({ max: 5, windowMs: 10_000 });
    expect(parseRate('200/1d')).toEqual({ max: 200, windowMs: 86_400_000 });
  });

  it.each(['', '120', '0/1m', '10/0m', '10/1w', '1/31d', '-1/1m', '1.5/1m', 'ten/1m'])('refuses %p', (text) => {
    expect(parseRate(text)).toBeNull();
  });

  it('is the syntax of the AuthCode limits too', () => {
    expect(parseLimits('X', 'caller', '120/1m')).toEqual({
      ok: true,
      limits: [{ scope: 'caller', max: 120, windowSeconds: 60 }],
    });
    expect(parseLimits('X', 'caller', '1/31d').ok).toBe(false);
  });
});

describe('call budgets on one node', () => {
  const rule = { max: 3, windowMs: MINUTE };
  const budgets = (options: { maxEntries?: number } = {}) => {
    const { counts, observer } = countingObserver();
    return { counts, budgets: createCallBudgets({ logger: capturingLogger().logger, observer, ...options }) };
  };

  it('admits max calls in a window, refuses the next until the window ends, with Retry-After to its end', () => {
    const { budgets: b, counts } = budgets();
    for (let i = 0; i < 3; i++) expect(b.take('E/Op', 'a', rule, T0 + i)).toEqual({ ok: true });
    expect(b.take('E/Op', 'a', rule, T0 + 10_000)).toEqual({ ok: false, retryAfterSeconds: 50 });
    expect(b.take('E/Op', 'a', rule, T0 + MINUTE - 1)).toEqual({ ok: false, retryAfterSeconds: 1 });
    expect(b.take('E/Op', 'a', rule, T0 + MINUTE)).toEqual({ ok: true });
    expect(counts.refused).toEqual(['limit', 'limit']);
  });

  it('counts each caller and each budget apart, and refused calls not at all', () => {
    const { budgets: b } = budgets();
    for (let i = 0; i < 5; i++) b.take('E/Op', 'a', rule, T0);
    expect(b.take('E/Op', 'b', rule, T0).ok).toBe(true);
    expect(b.take('E/Other', 'a', rule, T0).ok).toBe(true);
    // Another window length is another budget.
    expect(b.take('E/Op', 'a', { max: 3, windowMs: 10 * MINUTE }, T0).ok).toBe(true);
    expect(b.take('E/Op', 'a', rule, T0 + MINUTE).ok).toBe(true);
  });

  it('uses fixed windows: a burst at the end of one and the start of the next gets twice max (documented)', () => {
    const { budgets: b } = budgets();
    const admitted = [
      T0 + MINUTE - 3,
      T0 + MINUTE - 2,
      T0 + MINUTE - 1,
      T0 + MINUTE,
      T0 + MINUTE + 1,
      T0 + MINUTE + 2,
      T0 + MINUTE + 3,
    ].filter((at) => b.take('E/Op', 'a', rule, at).ok);
    expect(admitted).toHaveLength(6);
  });

  it('keeps at most maxEntries counters, forgetting those not used for half that many others, whose count starts again', () => {
    const { budgets: b, counts } = budgets({ maxEntries: 4 });
    for (const caller of ['a', 'b', 'c']) for (let i = 0; i < 3; i++) b.take('E/Op', caller, rule, T0);
    expect(b.take('E/Op', 'a', rule, T0).ok).toBe(false); // a is used again: kept
    expect(b.take('E/Op', 'd', rule, T0).ok).toBe(true); // b was not: forgotten
    expect(counts.evicted.budget).toBe(1);
    expect(b.take('E/Op', 'a', rule, T0).ok).toBe(false);
    expect(b.take('E/Op', 'c', rule, T0).ok).toBe(false);
    expect(b.take('E/Op', 'b', rule, T0).ok).toBe(true);
    for (let i = 0; i < 10_000; i++) {
      b.take('E/Op', `walker-${i}`, rule, T0);
      expect(b.size).toBeLessThanOrEqual(4);
    }
  });

  it('runs one merge at a time: a slow one delays the next instead of queueing them', async () => {
    jest.useFakeTimers();
    try {
      let calls = 0;
      let release: () => void = () => undefined;
      const slow: BudgetStore = {
        dialect: 'postgres',
        mergeAccessCounters: () => {
          calls++;
          return new Promise((resolve) => (release = () => resolve(new Map())));
        },
        pruneAccessCounters: async () => 0,
      };
      const b = createCallBudgets({ store: slow, logger: capturingLogger().logger, syncIntervalMs: 10, now: () => T0 });
      b.start();
      b.take('E/Op', 'a', rule, T0);
      await jest.advanceTimersByTimeAsync(1000);
      expect(calls).toBe(1);
      release();
      await jest.advanceTimersByTimeAsync(10);
      expect(calls).toBe(2);
      release();
      const stopped = b.stop();
      await jest.advanceTimersByTimeAsync(0);
      release();
      await stopped;
    } finally {
      jest.useRealTimers();
    }
  });

  it('does not merge on the interval before it has counted a call (a policy without limits costs the store nothing)', async () => {
    jest.useFakeTimers();
    try {
      let calls = 0;
      const counting: BudgetStore = {
        dialect: 'postgres',
        mergeAccessCounters: () => {
          calls++;
          return Promise.resolve(new Map());
        },
        pruneAccessCounters: async () => 0,
      };
      const b = createCallBudgets({
        store: counting,
        logger: capturingLogger().logger,
        syncIntervalMs: 10,
        now: () => T0,
      });
      b.start();
      await jest.advanceTimersByTimeAsync(1000);
      expect(calls).toBe(0);
      b.take('E/Op', 'a', rule, T0);
      await jest.advanceTimersByTimeAsync(10);
      expect(calls).toBe(1);
      await b.stop();
    } finally {
      jest.useRealTimers();
    }
  });

  it('does not merge on SQLite: one node, nothing written', async () => {
    const sqlite = sqliteVariant();
    const ctx = await sqlite.create();
    try {
      const b = createCallBudgets({ store: ctx.store.access, logger: capturingLogger().logger, now: () => T0 });
      expect(b.shared).toBe(false);
      b.start();
      b.take('E/Op', 'a', rule, T0);
      await b.stop();
      expect(await ctx.query('select count(*) as n from access_counters')).toEqual([{ n: 0 }]);
    } finally {
      await ctx.cleanup();
    }
  });
});

describeWithPostgres('call budgets on several nodes merged through PostgreSQL', (databaseUrl) => {
  const postgres = postgresVariant(databaseUrl);
  let ctx: TestStore;
  let stores: BudgetStore[];
  let clock = T0;
  beforeEach(async () => {
    ctx = await postgres.create();
    // Each node its own pool on the same schema, as separate processes would have.
    stores = [ctx.store.access, (await ctx.reopen()).access, (await ctx.reopen()).access];
    clock = T0;
  });
  afterEach(() => ctx.cleanup());

  const node = (i: number, extra: { store?: BudgetStore } = {}) => {
    const { counts, observer } = countingObserver();
    const { lines, logger } = capturingLogger();
    return {
      counts,
      lines,
      budgets: createCallBudgets({ store: stores[i], logger, observer, now: () => clock, ...extra }),
    };
  };
  const rule = { max: 100, windowMs: MINUTE };
  const takeMany = (b: ReturnType<typeof node>['budgets'], n: number, caller = 'a') => {
    let admitted = 0;
    for (let i = 0; i < n; i++) if (b.take('E/Op', caller, rule, clock).ok) admitted++;
    return admitted;
  };

  it('shares one budget: after a merge each node admits only what the others left', async () => {
    const a = node(0).budgets;
    const b = node(1).budgets;
    expect(a.shared).toBe(true);
    expect(takeMany(a, 60)).toBe(60);
    await a.sync();
    // b has never seen this caller: it learns what a counted from the busiest counters.
    await b.sync();
    expect(takeMany(b, 100)).toBe(40);
    await b.sync();
    await a.sync();
    expect(takeMany(a, 10)).toBe(0);
    const refused = b.take('E/Op', 'a', rule, T0 + 15_000);
    expect(refused).toEqual({ ok: false, retryAfterSeconds: 45 });
    // A new window starts from zero everywhere.
    clock = T0 + MINUTE;
    expect(takeMany(a, 5)).toBe(5);
    expect(takeMany(b, 5)).toBe(5);
  });

  it('overshoots by at most what the other nodes admitted since the last merge, then refuses everywhere', async () => {
    const a = node(0).budgets;
    const b = node(1).budgets;
    await a.sync();
    await b.sync();
    expect(takeMany(a, 60)).toBe(60);
    // b has not merged since a counted those 60: it still admits a whole budget.
    expect(takeMany(b, 200)).toBe(100);
    await a.sync();
    await b.sync();
    await a.sync();
    expect(takeMany(a, 10)).toBe(0);
    expect(takeMany(b, 10)).toBe(0);
  });

  it('holds the overshoot bound for any interleaving of calls and merges over three nodes', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(fc.record({ take: fc.nat(2), n: fc.integer({ min: 1, max: 15 }) }), fc.record({ sync: fc.nat(2) })),
          { maxLength: 25 },
        ),
        async (steps) => {
          const caller = `run-${run++}`;
          const nodes = [0, 1, 2].map((i) => node(i).budgets);
          const small = { max: 20, windowMs: MINUTE };
          const admitted = [0, 0, 0];
          // What each node had admitted at its last merge (what it gave the store)...
          const pushed = [0, 0, 0];
          // ...and, per node, the others' pushes it read back at its own last merge.
          const known = [
            [0, 0, 0],
            [0, 0, 0],
            [0, 0, 0],
          ];
          for (const step of steps) {
            if ('sync' in step) {
              await nodes[step.sync].sync();
              pushed[step.sync] = admitted[step.sync]!;
              known[step.sync] = [...pushed];
              continue;
            }
            for (let i = 0; i < step.n; i++) {
              if (!nodes[step.take].take('E/Op', caller, small, clock).ok) continue;
              admitted[step.take]++;
              const total = admitted.reduce((s, v) => s + v, 0);
              // The others' calls this node had not seen merged when it admitted this one.
              const unseen = admitted.reduce((s, v, j) => (j === step.take ? s : s + v - known[step.take][j]), 0);
              expect(total).toBeLessThanOrEqual(small.max + unseen);
              expect(total).toBeLessThanOrEqual(3 * small.max);
            }
          }
          // Once every node has merged twice (push, then read the others' pushes), nobody admits more past max.
          for (let round = 0; round < 2; round++) for (const n of nodes) await n.sync();
          const total = admitted.reduce((s, v) => s + v, 0);
          if (total >= small.max) for (const n of nodes) expect(n.take('E/Op', caller, small, clock).ok).toBe(false);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('keeps the counts when a merge fails, warns once, counts the failure, and adds them once when the store is back', async () => {
    let down = true;
    const flaky: BudgetStore = {
      dialect: 'postgres',
      mergeAccessCounters: (merge) =>
        down ? Promise.reject(new Error('connection refused')) : stores[0].mergeAccessCounters(merge),
      pruneAccessCounters: (before) => stores[0].pruneAccessCounters(before),
    };
    const a = node(0, { store: flaky });
    expect(takeMany(a.budgets, 30)).toBe(30);
    await a.budgets.sync();
    await a.budgets.sync();
    expect(a.counts.syncFailures).toBe(2);
    expect(a.lines.filter((l) => l.level === 40)).toHaveLength(1);
    expect(a.lines[0]).toMatchObject({ msg: expect.stringContaining('merge with the other nodes failed') });
    down = false;
    await a.budgets.sync();
    await a.budgets.sync();
    expect(await ctx.query('select count from access_counters')).toEqual([{ count: 30 }]);
    const b = node(1).budgets;
    await b.sync();
    expect(takeMany(b, 100)).toBe(70);
  });

  it('pushes its last counts on stop, and merges on the interval once started', async () => {
    const a = node(0, {}).budgets;
    takeMany(a, 7);
    await a.stop();
    expect(await ctx.query('select count from access_counters')).toEqual([{ count: 7 }]);
    const started = createCallBudgets({
      store: stores[1],
      logger: capturingLogger().logger,
      now: () => clock,
      syncIntervalMs: 20,
    });
    started.start();
    started.take('E/Op', 'a', rule, clock);
    try {
      for (let i = 0; i < 200; i++) {
        const [row] = await ctx.query<{ count: number }>('select count from access_counters');
        if (row?.count === 8) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(await ctx.query('select count from access_counters')).toEqual([{ count: 8 }]);
    } finally {
      await started.stop();
    }
  });

  it('forgets the rows of windows long over', async () => {
    const a = node(0).budgets;
    takeMany(a, 3);
    await a.sync();
    clock = T0 + 3 * MINUTE;
    takeMany(a, 1);
    // The first merge of a process prunes; a new one is made here.
    const later = node(1).budgets;
    later.take('E/Op', 'b', rule, clock);
    await later.sync();
    expect(
      (await ctx.query<{ window_start: string }>('select window_start from access_counters order by window_start')).map(
        (r) => r.window_start,
      ),
    ).toEqual(['2030-01-01T00:03:00.000Z']);
  });
});
