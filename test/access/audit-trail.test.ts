// The audit trail: record() buffers and never waits or throws; entries are
// written in batches (one insert each) on the interval or once a batch is
// waiting; a store outage keeps a bounded buffer and counts what it drops;
// stop() writes what is left. Then the same on a real store of each variant,
// and the retention that prunes it.
import { createHash } from 'node:crypto';
import { AUDIT_SUBJECT_MAX } from '../../src/access/audit-bounds';
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
        subjectLength: null,
        subjectSha256: null,
        omitted: null,
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
    expect(inserts.flat().map((row) => row.subject)).toEqual([
      'dev-0',
      'dev-1',
      'dev-2',
      'dev-3',
      'dev-4',
      'dev-5',
      'dev-6',
    ]);
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
    expect(lines.at(-1)).toMatchObject({
      level: 40,
      lost: 1,
      msg: expect.stringContaining('stopped with entries the store did not take'),
    });
  });
});

describe('what the audit trail keeps of an entry', () => {
  const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

  it('keeps a subject longer than any valid id of its kind cut, with its full length and the SHA-256 of the whole', async () => {
    const { sink, inserts } = recordingSink();
    const trail = createAuditTrail({ store: sink, logger: capturingLogger().logger });
    const megabyte = `dev-${'7'.repeat(1_000_000)}`;
    trail.record(entry(megabyte, { outcome: 'refused', reason: 'limit' }));
    trail.record(entry('d'.repeat(AUDIT_SUBJECT_MAX.device)));
    trail.record(entry('s'.repeat(200), { subjectKind: 'student', operation: 'GetStudentsAbcenceByID' }));
    trail.record(entry(`https://${'a'.repeat(600)}`, { subjectKind: 'school', operation: 'GetStudentSchool' }));
    trail.record(entry('c'.repeat(65), { subjectKind: 'class', operation: 'GetStudentsAudtiNote' }));
    trail.record(entry('x'.repeat(600), { subjectKind: null }));
    trail.record(entry(null as unknown as string));
    await trail.flush();
    const rows = inserts.flat();
    expect(rows.map((row) => [row.subject?.length ?? null, row.subjectLength, row.subjectSha256])).toEqual([
      [128, megabyte.length, sha256(megabyte)],
      [128, null, null],
      [128, 200, sha256('s'.repeat(200))],
      [512, 608, sha256(`https://${'a'.repeat(600)}`)],
      [64, 65, sha256('c'.repeat(65))],
      [512, 600, sha256('x'.repeat(600))],
      [null, null, null],
    ]);
    expect(rows[0].subject).toBe(megabyte.slice(0, 128));
  });

  it('never cuts a subject between the two halves of a character', async () => {
    const { sink, inserts } = recordingSink();
    const trail = createAuditTrail({ store: sink, logger: capturingLogger().logger });
    const subject = `${'a'.repeat(127)}😀${'b'.repeat(10)}`;
    trail.record(entry(subject));
    await trail.flush();
    expect(inserts[0][0]).toMatchObject({
      subject: 'a'.repeat(127),
      subjectLength: subject.length,
      subjectSha256: sha256(subject),
    });
  });

  it('cuts an address and a user longer than any real one', async () => {
    const { sink, inserts } = recordingSink();
    const trail = createAuditTrail({ store: sink, logger: capturingLogger().logger });
    trail.record(entry('dev-1', { address: '1'.repeat(10_000), user: 'u'.repeat(10_000) }));
    await trail.flush();
    expect(inserts[0][0]).toMatchObject({ address: '1'.repeat(64), user: 'u'.repeat(64), subject: 'dev-1' });
  });
});

describe('refusals kept per caller', () => {
  const refused = (n: number, overrides: Partial<AuditEntry> = {}) =>
    entry(`dev-${n}`, { outcome: 'refused', reason: 'limit', at: new Date(AT.getTime() + n), ...overrides });

  it('keeps 60 refusals of a caller a minute one by one, counts the rest, and writes one summary once the minute is over', async () => {
    const { sink, inserts } = recordingSink();
    let now = AT.getTime();
    const trail = createAuditTrail({ store: sink, logger: capturingLogger().logger, now: () => now });
    for (let n = 0; n < 1000; n++) trail.record(refused(n));
    await trail.flush();
    expect(inserts.flat()).toHaveLength(60);
    expect(inserts.flat().every((row) => row.omitted === null && row.reason === 'limit')).toBe(true);
    now = Date.parse('2030-01-01T10:01:00.000Z');
    await trail.flush();
    expect(inserts.flat().slice(60)).toEqual([
      {
        at: new Date(AT.getTime() + 999).toISOString(),
        address: '10.0.0.1',
        user: null,
        endpoint: 'PushNotificationMobile.asmx',
        operation: 'GetTokenDevice',
        subjectKind: 'device',
        subject: null,
        subjectLength: null,
        subjectSha256: null,
        outcome: 'refused',
        reason: 'summary',
        omitted: 940,
      },
    ]);
    // The next minute has its own allowance.
    trail.record(refused(1, { at: new Date(now) }));
    await trail.flush();
    expect(inserts.flat()).toHaveLength(62);
  });

  it('never bounds allowed reads, counts an IPv6 caller by its /64, and each caller (or Basic user) on its own', async () => {
    const { sink, inserts } = recordingSink();
    const trail = createAuditTrail({ store: sink, logger: capturingLogger().logger, now: () => AT.getTime() });
    for (let n = 0; n < 200; n++) trail.record(entry(`dev-${n}`));
    for (let n = 0; n < 100; n++) trail.record(refused(n, { address: `2001:db8:1:2::${n.toString(16)}` }));
    for (let n = 0; n < 100; n++) trail.record(refused(n, { address: '10.0.0.2' }));
    for (let n = 0; n < 100; n++) trail.record(refused(n, { address: `10.0.0.${n}`, user: 'app-gateway' }));
    await trail.flush();
    const rows = inserts.flat();
    expect(rows.filter((row) => row.outcome === 'allowed')).toHaveLength(200);
    expect(rows.filter((row) => row.address?.startsWith('2001:db8:1:2::'))).toHaveLength(60);
    expect(rows.filter((row) => row.address === '10.0.0.2' && row.user === null)).toHaveLength(60);
    expect(rows.filter((row) => row.user === 'app-gateway')).toHaveLength(60);
  });

  it('stop() writes the summaries of the minute under way', async () => {
    const { sink, inserts } = recordingSink();
    const trail = createAuditTrail({ store: sink, logger: capturingLogger().logger, now: () => AT.getTime() });
    for (let n = 0; n < 70; n++)
      trail.record(
        refused(n, { operation: n % 2 === 0 ? 'GetTokenDevice' : 'GetStudentsAbcenceByID', subjectKind: 'device' }),
      );
    await trail.stop();
    const summaries = inserts.flat().filter((row) => row.omitted !== null);
    expect(summaries).toEqual([
      expect.objectContaining({
        reason: 'summary',
        omitted: 10,
        endpoint: 'PushNotificationMobile.asmx',
        operation: '*',
      }),
    ]);
  });

  it('neither copies nor hashes a refusal it only counts', async () => {
    const { sink } = recordingSink();
    const trail = createAuditTrail({
      store: sink,
      logger: capturingLogger().logger,
      now: () => AT.getTime(),
      refusals: { perWindow: 0 },
    });
    const started = performance.now();
    const megabyte = 'z'.repeat(1_000_000);
    for (let n = 0; n < 2000; n++) trail.record(refused(n, { subject: megabyte }));
    expect(trail.buffered).toBe(0);
    // Hashing 2 GB would take seconds.
    expect(performance.now() - started).toBeLessThan(1000);
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
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'audit trail pruned', deleted: 4, before: '2029-12-31T12:00:00.000Z' }),
    ]);
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
  it('writes a refusal with a megabyte subject, cut, in the same batch as the others', async () => {
    const ctx = await variant.create();
    try {
      const { logger, lines } = capturingLogger();
      const trail = createAuditTrail({ store: ctx.store.access, logger });
      // Random, so that PostgreSQL cannot compress it under its index's limit.
      const megabyte = Array.from({ length: 40_000 }, () => Math.random().toString(36).slice(2)).join('');
      trail.record(entry(megabyte, { outcome: 'refused', reason: 'limit' }));
      trail.record(entry('dev-2'));
      await trail.stop();
      expect(lines.filter((line) => Number(line.level) >= 40)).toEqual([]);
      const page = await ctx.store.admin.listAuditEntries({ limit: 10, offset: 0 });
      expect(page.items.map((item) => item.subject).sort()).toEqual([megabyte.slice(0, 128), 'dev-2'].sort());
    } finally {
      await ctx.cleanup();
    }
  });

  it('writes what was recorded, lists it, and prunes what is past retention', async () => {
    const ctx = await variant.create();
    try {
      const trail = createAuditTrail({ store: ctx.store.access, logger: capturingLogger().logger, batchSize: 50 });
      trail.start();
      for (let i = 0; i < 120; i++) trail.record(entry(`dev-${i}`, { at: new Date(AT.getTime() - i * 86_400_000) }));
      await trail.stop();
      expect((await ctx.store.admin.listAuditEntries({ limit: 1, offset: 0 })).total).toBe(120);
      expect(await pruneAuditOnce(ctx.store.access, 90, AT, capturingLogger().logger)).toBe(29);
      const page = await ctx.store.admin.listAuditEntries({ limit: 200, offset: 0 });
      expect(page.total).toBe(91);
      expect(page.items.at(-1)?.subject).toBe('dev-90');
    } finally {
      await ctx.cleanup();
    }
  });
});
