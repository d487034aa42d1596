// The console's import jobs and sign-in counts in the store (migration 0017,
// src/store/import-jobs.ts, sign-in-throttle.ts): one job at a time
// across nodes, a claim with a lease that another node takes over once it
// runs out, progress and ends written only under the current claim, a bounded
// number of claims, uploads kept in chunks, and uploads pruned by age and by
// count, chunks of uploads that never finished with them.
import { storeVariants, type TestStore } from '../support/stores';

describe.each(storeVariants())('console jobs on $name', (variant) => {
  let ctx: TestStore;
  let nowMs: number;
  const now = () => new Date(nowMs);

  beforeEach(async () => {
    nowMs = Date.parse('2026-03-02T08:00:00.000Z');
    ctx = await variant.create({ now });
  });
  afterEach(() => ctx.cleanup());

  const upload = async (id: string) => {
    await ctx.store.console.writeUploadChunk(id, 0, Buffer.from('id,school,'));
    await ctx.store.console.writeUploadChunk(id, 1, Buffer.from('fullName\n'));
    return ctx.store.console.insertUpload({
      id,
      account: 'olga',
      fileName: 'pupils.csv',
      collection: 'students',
      size: 19,
      chunks: 2,
    });
  };
  const chunksOf = async (id: string) =>
    (
      await ctx.query<{ seq: number }>('select seq from console_upload_chunks where upload_id = ? order by seq', [id])
    ).map((row) => Number(row.seq));

  it('keeps one job at a time, hands a claim over when its lease runs out, and ignores the old claim', async () => {
    const other = await ctx.reopen({ now });
    expect(await upload('u1')).toBe(true);
    expect(
      await other.console.insertUpload({
        id: 'u2',
        account: 'x',
        fileName: 'b.csv',
        collection: null,
        size: 0,
        chunks: 0,
      }),
    ).toBe(false);
    expect(await ctx.store.console.findUpload('u2')).toBeNull();

    const first = await ctx.store.console.claimImportJob(60_000, 3);
    expect(first).toMatchObject({
      kind: 'check',
      attempt: 1,
      upload: { id: 'u1', fileName: 'pupils.csv', size: 19, chunks: 2 },
    });
    expect((await other.console.readUploadChunk('u1', 1))?.toString()).toBe('fullName\n');
    expect(await other.console.readUploadChunk('u1', 2)).toBeNull();
    expect(await other.console.claimImportJob(60_000, 3)).toBeNull();
    const progress = { stage: 'checking' as const, done: 5, total: 10 };
    expect(
      await ctx.store.console.writeImportProgress(first?.jobId ?? '', first?.claimToken ?? '', progress, 60_000),
    ).toBe(true);
    expect((await other.console.findUpload('u1'))?.check).toMatchObject({ state: 'running', done: 5, total: 10 });

    nowMs += 61_000;
    const second = await other.console.claimImportJob(60_000, 3);
    expect(second).toMatchObject({ jobId: first?.jobId, attempt: 2 });
    expect(
      await ctx.store.console.writeImportProgress(first?.jobId ?? '', first?.claimToken ?? '', progress, 60_000),
    ).toBe(false);
    expect(await ctx.store.console.finishImportJob(first?.jobId ?? '', first?.claimToken ?? '', 'done', '{}')).toBe(
      false,
    );
    expect(
      await other.console.finishImportJob(second?.jobId ?? '', second?.claimToken ?? '', 'done', '{"files":[]}'),
    ).toBe(true);
    expect((await ctx.store.console.findUpload('u1'))?.check).toMatchObject({ state: 'done', report: '{"files":[]}' });

    // Once checked, applied once; the next upload waits for the apply to end.
    expect(await ctx.store.console.queueApply('u1')).toBe('started');
    expect(await ctx.store.console.queueApply('u1')).toBe('applied');
    expect(await upload('u3')).toBe(false);
    const apply = await ctx.store.console.claimImportJob(60_000, 3);
    expect(await ctx.store.console.finishImportJob(apply?.jobId ?? '', apply?.claimToken ?? '', 'done', '{}')).toBe(
      true,
    );
    // An applied upload's file is not kept; its reports are.
    expect(await chunksOf('u1')).toEqual([]);
    expect((await ctx.store.console.findUpload('u1'))?.apply).toMatchObject({ state: 'done', report: '{}' });
    // u3's first try was refused and its chunks deleted by the caller (import-jobs.ts); here they are written again.
    await ctx.store.console.deleteUploadChunks('u3');
    expect(await upload('u3')).toBe(true);
    expect(await chunksOf('u3')).toEqual([0, 1]);
  });

  it('fails a job claimed too often, and refuses to apply an upload not checked', async () => {
    await upload('u1');
    expect(await ctx.store.console.queueApply('u1')).toBe('not-checked');
    expect(await ctx.store.console.queueApply('nope')).toBe('missing');
    for (let attempt = 1; attempt <= 2; attempt++) {
      expect(await ctx.store.console.claimImportJob(60_000, 2)).toMatchObject({ attempt });
      nowMs += 61_000;
    }
    expect(await ctx.store.console.claimImportJob(60_000, 2)).toBeNull();
    expect((await ctx.store.console.findUpload('u1'))?.check).toMatchObject({ state: 'failed', report: null });
    expect(await upload('u2')).toBe(true);
  });

  it('prunes uploads by age and by count, never one whose job is not over', async () => {
    for (const id of ['a', 'b', 'c']) {
      await upload(id);
      const claim = await ctx.store.console.claimImportJob(60_000, 3);
      await ctx.store.console.finishImportJob(claim?.jobId ?? '', claim?.claimToken ?? '', 'done', '{}');
      nowMs += 60_000;
    }
    await upload('d');
    // `a` is older than the cut-off; of the rest, two are kept: `d` (queued) and the newest finished, `c`.
    expect(await ctx.store.console.pruneUploads(new Date(nowMs - 150_000).toISOString(), 2)).toBe(2);
    const left = await ctx.query<{ id: string }>('select id from console_uploads order by id');
    expect(left.map((row) => row.id)).toEqual(['c', 'd']);
    expect(await ctx.query('select id from console_import_jobs where upload_id in (?, ?)', ['a', 'b'])).toEqual([]);
    expect(await chunksOf('a')).toEqual([]);
    expect(await chunksOf('c')).toEqual([0, 1]);
    expect(await ctx.store.console.pruneUploads(new Date(nowMs + 1).toISOString(), 0)).toBe(1);
    expect((await ctx.store.console.findUpload('d'))?.check?.state).toBe('queued');
  });

  it('deletes the chunks of an upload that never finished once they are older than the cut-off', async () => {
    // More chunks than one delete takes (src/store/import-jobs.ts deletes a few per statement).
    for (let seq = 0; seq < 9; seq++) await ctx.store.console.writeUploadChunk('gone', seq, Buffer.from('x'));
    nowMs += 10_000;
    await ctx.store.console.writeUploadChunk('receiving', 0, Buffer.from('y'));
    await upload('kept');
    const cutOff = new Date(nowMs - 5_000).toISOString();
    nowMs += 3_600_000;
    // `kept` is an upload and `receiving` is newer than the cut-off: both stay.
    expect(await ctx.store.console.pruneUploads(cutOff, 20)).toBe(0);
    expect(await chunksOf('gone')).toEqual([]);
    expect(await chunksOf('receiving')).toEqual([0]);
    expect(await chunksOf('kept')).toEqual([0, 1]);
  });

  it('counts sign-in failures per key and window, gives them back, and trusts for a time', async () => {
    const { console: store } = ctx.store;
    const w1 = '2026-03-02T08:00:00.000Z';
    const w2 = '2026-03-02T08:01:00.000Z';
    expect(await store.countSignInFailure('account:olga', w1)).toBe(1);
    expect(await store.countSignInFailure('account:olga', w1)).toBe(2);
    await store.giveBackSignInFailure('account:olga', w1);
    expect(await store.readSignInFailures(['account:olga', 'address:x'], w1)).toEqual(new Map([['account:olga', 1]]));
    expect(await store.countSignInFailure('account:olga', w2)).toBe(1);
    // A node whose clock is behind counts into the later window rather than starting it again.
    expect(await store.countSignInFailure('account:olga', w1)).toBe(2);
    await store.trustSignIn('1.2.3.4|olga', '2026-03-02T09:00:00.000Z');
    expect(await store.signInTrusted('1.2.3.4|olga')).toBe(true);
    nowMs = Date.parse('2026-03-02T09:00:01.000Z');
    expect(await store.signInTrusted('1.2.3.4|olga')).toBe(false);
    await store.pruneSignInThrottle('2026-03-02T09:00:00.000Z');
    expect(await ctx.query('select key from console_sign_in_failures')).toEqual([]);
    expect(await ctx.query('select key from console_sign_in_trust')).toEqual([]);
  });
});
