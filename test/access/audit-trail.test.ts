// The audit trail: record() buffers and never waits or throws; entries are
// written in batches (one insert each) on the interval or once a batch is
// waiting; a store outage keeps a bounded buffer and counts what it drops;
// stop() writes what is left. Then the same on a real store of each variant,
// and the retention that prunes it.
import { createAuditTrail, type AuditSink } from '../../src/access/audit-trail';
import { pruneAuditOnce, startAuditPruning, type AuditPruningStore } from '../../src/access/audit-retention';
import type { AuditEntry } from '../../src/access/contracts';
import type { NewAuditRow } from '../../src/store';
import { storeVariants } from '../support/stores';
import { capturingLogger } from '../support/logs';
import { countingObserver } from './support';

const AT = new Date('2030-01-01T10:00:00.000Z');

const entry = (subject: string, overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  at: AT,
  address: '10.0.0.1',
  user: null,
  endpoint: 'PushNotificationMobile.asmx',
  operation: 'GetTokenDevice',
  subjectKind: 'device',
  subject,
  outcome: 'allowed',
  reason: null,
  ...overrides,
});

function recordingSink() {
  const inserts: NewAuditRow[][] = [];
  let down = false;
  const sink: AuditSink = {
    async insertAuditEntries(rows) {
      if (down) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      inserts.push([...rows]);
    },
  };
  return {
    sink,
    inserts,
    setDown(value: boolean) {
      down = value;
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('audit trail', () => {
  afterEach(() => jest.useRealTimers());

  it('buffers entries and writes them in one insert per flush, as rows of the store', async () => {
    const { sink, inserts } = recordingSink();
    const { counts, observer } = countingObserver();
    const trail = createAuditTrail({ store: sink, logger: capturingLogger().logger, observer });
    trail.record(entry('dev-1'));
    trail.record(entry('dev-2', { outcome: 'refused', reason: 'limit', user: 'app' }));
    await settle();
    expect(inserts).toEqual([]);
    expect(trail.buffered).toBe(2);
    await trail.flush();
    expect(inserts).toHaveLength(1);
    expect(inserts[0]).toEqual([
      {
        at: '2030-01-01T10:00:00.000Z',
        address: '10.0.0.1',
        user: null,
        endpoint: 'PushNotificationMobile.asmx',
        operation: 'GetTokenDevice',
        subjectKind: 'device',
        subject: 'dev-1',
        outcome: 'allowed',
        reason: null,
      },
      expect.objectContaining({ subject: 'dev-2', outcome: 'refused', reason: 'limit', user: 'app' }),
    ]);
    expect(counts.audited.map((e) => e.subject)).toEqual(['dev-1', 'dev-2']);
    await trail.flush();
    expect(inserts).toHaveLength(1);
  });

  it('writes as soon as a batch is waiting, one insert per batch', async () => {
    const { sink, inserts } = recordingSink();
    const trail = createAuditTrail({ store: sink, logger: capturingLogger().logger, batchSize: 3 });
    for (let i = 0; i < 7; i++) trail.record(entry(`dev-${i}`));
    await settle();
    await trail.flush();
    expect(inserts.map((batch) => batch.length)).toEqual([3, 3, 1]);
    expect(inserts.flat().map((row) => row.subject)).toEqual(['dev-0', 'dev-1', 'dev-2', 'dev-3', 'dev-4', 'dev-5', 'dev-6']);
  });

  it('flushes on its interval once started, and stop() writes what is left', async () => {
    jest.useFakeTimers();
    const { sink, inserts } = recordingSink();
    const trail = createAuditTrail({ store: sink, logger: capturingLogger().logger, flushIntervalMs: 1000 });
    trail.start();
    trail.record(entry('dev-1'));
    await jest.advanceTimersByTimeAsync(999);
    expect(inserts).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(inserts).toHaveLength(1);
    trail.record(entry('dev-2'));
    await trail.stop();
    expect(inserts.map((batch) => batch.map((row) => row.subject))).toEqual([['dev-1'], ['dev-2']]);
    // Stopped: no timer left behind.
    trail.record(entry('dev-3'));
    await jest.advanceTimersByTimeAsync(5000);
    expect(inserts).toHaveLength(2);
  });

  it('keeps a bounded buffer while the store is down, drops and counts the rest, warns once, never throws', async () => {
    const { sink, inserts, setDown } = recordingSink();
    const { counts, observer } = countingObserver();
    const { lines, logger } = capturingLogger();
    const trail = createAuditTrail({ store: sink, logger, observer, batchSize: 2, maxBuffered: 5 });
    setDown(true);
    for (let i = 0; i < 8; i++) expect(trail.record(entry(`dev-${i}`))).toBeUndefined();
    await trail.flush();
    await trail.flush();
    expect(trail.buffered).toBe(5);
    expect(trail.dropped).toBe(3);
    expect(counts.dropped).toBe(3);
    expect(counts.writeFailures).toBeGreaterThanOrEqual(2);
    const warnings = lines.filter((l) => l.level === 40);
    expect(warnings.map((l) => l.msg).sort()).toEqual([
      expect.stringContaining('buffer full while the store cannot take entries'),
      expect.stringContaining('the store did not take the entries'),
    ]);
    setDown(false);
    await trail.flush();
    expect(inserts.flat().map((row) => row.subject)).toEqual(['dev-0', 'dev-1', 'dev-2', 'dev-3', 'dev-4']);
    expect(lines.at(-1)).toMatchObject({ level: 30, msg: 'audit trail: the store takes entries again', dropped: 3 });
    // A new outage warns again.
    setDown(true);
    for (let i = 0; i < 10; i++) trail.record(entry(`later-${i}`));
    await trail.flush();
    expect(lines.filter((l) => l.level === 40)).toHaveLength(4);
  });

  it('stop() with the store still down says how many entries it could not write', async () => {
    const { sink, setDown } = recordingSink();
    const { lines, logger } = capturingLogger();
    const trail = createAuditTrail({ store: sink, logger });
    setDown(true);
    trail.record(entry('dev-1'));
    await trail.stop();
    expect(lines.at(-1)).toMatchObject({ level: 40, lost: 1, msg: expect.stringContaining('stopped with entries the store did not take') });
  });
});

describe('audit retention', () => {
  afterEach(() => jest.useRealTimers());
  const NOW = new Date('2030-03-31T12:00:00.000Z');

  function recordingStore(fail: () => boolean = () => false): AuditPruningStore & { cutoffs: string[] } {
    const cutoffs: string[] = [];
    return {
      cutoffs,
      async pruneAuditEntries(before) {
        cutoffs.push(before);
        if (fail()) throw new Error('database is locked');
        return 4;
      },
    };
  }

  it('deletes what was recorded the given number of days before now, and logs how many', async () => {
    const store = recordingStore();
    const { lines, logger } = capturingLogger();
    expect(await pruneAuditOnce(store, 90, NOW, logger)).toBe(4);
    expect(store.cutoffs).toEqual(['2029-12-31T12:00:00.000Z']);
    expect(lines).toEqual([expect.objectContaining({ msg: 'audit trail pruned', deleted: 4, before: '2029-12-31T12:00:00.000Z' })]);
  });

  it('runs on the outbox retention schedule: a first pass after the delay, then one per interval; a failed pass is logged and retried', async () => {
    jest.useFakeTimers();
    let failures = 1;
    const store = recordingStore(() => failures-- > 0);
    const { lines, logger } = capturingLogger();
    const stop = startAuditPruning(store, 30, logger, () => NOW, { firstDelayMs: 60_000, intervalMs: 3_600_000 });
    await jest.advanceTimersByTimeAsync(59_999);
    expect(store.cutoffs).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(store.cutoffs).toEqual(['2030-03-01T12:00:00.000Z']);
    expect(lines[0]).toMatchObject({ level: 40, msg: 'audit trail pruning failed; the next pass tries again' });
    await jest.advanceTimersByTimeAsync(3_600_000);
    expect(store.cutoffs).toHaveLength(2);
    expect(lines.at(-1)).toMatchObject({ msg: 'audit trail pruned', deleted: 4 });
    await stop();
    await jest.advanceTimersByTimeAsync(10 * 3_600_000);
    expect(store.cutoffs).toHaveLength(2);
  });
});

describe.each(storeVariants())('audit trail on a $name store', (variant) => {
  it('writes what was recorded, lists it, and prunes what is past retention', async () => {
    const ctx = await variant.create();
    try {
      const trail = createAuditTrail({ store: ctx.store, logger: capturingLogger().logger, batchSize: 50 });
      trail.start();
      for (let i = 0; i < 120; i++) trail.record(entry(`dev-${i}`, { at: new Date(AT.getTime() - i * 86_400_000) }));
      await trail.stop();
      expect((await ctx.store.listAuditEntries({ limit: 1, offset: 0 })).total).toBe(120);
      expect(await pruneAuditOnce(ctx.store, 90, AT, capturingLogger().logger)).toBe(29);
      const page = await ctx.store.listAuditEntries({ limit: 200, offset: 0 });
      expect(page.total).toBe(91);
      expect(page.items.at(-1)?.subject).toBe('dev-90');
    } finally {
      await ctx.cleanup();
    }
  });
});
