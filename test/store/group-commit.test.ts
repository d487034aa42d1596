// Group commit (src/store/outbox/group-commit.ts) and its use by the PostgreSQL
// store: concurrent calls that queue messages share a statement or a
// transaction; each is answered only after its row is committed; a failure
// fails exactly the calls of its batch; the AuthCode limits hold within a batch.
import { GroupCommit } from '../../src/store/outbox/group-commit';
import type { AuthCodeLimit, NewPushNotification } from '../../src/store';
import { queueAuthCode, postgresVariant, describeWithPostgres, type TestStore } from '../support/stores';

/** A write whose batches are kept, and which finishes only when told to. */
function controlledWrite() {
  const batches: number[][] = [];
  const finish: Array<() => void> = [];
  const write = (items: readonly number[]) => {
    batches.push([...items]);
    return new Promise<number[]>((resolve, reject) => {
      finish.push(() => (items.includes(-1) ? reject(new Error('refused')) : resolve(items.map((i) => i * 10))));
    });
  };
  const finishAll = () => finish.splice(0).forEach((f) => f());
  return { batches, write, finishAll };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  it('writes the calls of one turn together, and answers each with its own result', async () => {
    const w = controlledWrite();
    const group = new GroupCommit({ write: w.write, waitMs: 1000, maxBatch: 100, maxInFlight: 2 });
    const settled: number[] = [];
    const results = [1, 2, 3].map((i) => group.submit(i).then((r) => (settled.push(i), r)));
    await nextTurn();
    expect(w.batches).toEqual([[1, 2, 3]]);
    // Written but not committed: no call is answered yet.
    await nextTurn();
    expect(settled).toEqual([]);
    w.finishAll();
    expect(await Promise.all(results)).toEqual([10, 20, 30]);
  });

  it('while a batch is written, gathers the next calls and sends them when it is done', async () => {
    const w = controlledWrite();
    const group = new GroupCommit({ write: w.write, waitMs: 60_000, maxBatch: 100, maxInFlight: 1 });
    const first = group.submit(1);
    await nextTurn();
    const later = [2, 3, 4].map((i) => group.submit(i));
    await nextTurn();
    expect(w.batches).toEqual([[1]]);
    expect(group.state).toEqual({ waiting: 3, writing: 1 });
    w.finishAll();
    expect(await first).toBe(10);
    await nextTurn();
    expect(w.batches).toEqual([[1], [2, 3, 4]]);
    w.finishAll();
    expect(await Promise.all(later)).toEqual([20, 30, 40]);
  });

  it('a waiting call goes after at most waitMs when a slot is free', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    try {
      const w = controlledWrite();
      const group = new GroupCommit({ write: w.write, waitMs: 5, maxBatch: 100, maxInFlight: 2 });
      void group.submit(1);
      await nextTurn();
      void group.submit(2);
      await nextTurn();
      expect(w.batches).toEqual([[1]]);
      jest.advanceTimersByTime(5);
      expect(w.batches).toEqual([[1], [2]]);
      w.finishAll();
    } finally {
      jest.useRealTimers();
    }
  });

  it('with spacingMs, a writer that just wrote gathers the next calls until the spacing ends; a quiet one writes at once', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    try {
      // Each batch written at once, as on SQLite: nothing is ever waiting for a batch in flight.
      const batches: number[][] = [];
      const write = (items: readonly number[]) => {
        batches.push([...items]);
        return Promise.resolve(items.map((i) => i * 10));
      };
      const group = new GroupCommit({ write, waitMs: 0, maxBatch: 3, maxInFlight: 1, spacingMs: 10 });
      expect(await Promise.all([group.submit(1), nextTurn()])).toEqual([10, undefined]);
      expect(batches).toEqual([[1]]);
      // Answers that come one by one right after a batch wait for the spacing, then go together.
      const two = group.submit(2);
      await nextTurn();
      jest.advanceTimersByTime(4);
      const three = group.submit(3);
      await nextTurn();
      expect(batches).toEqual([[1]]);
      jest.advanceTimersByTime(6);
      expect(await Promise.all([two, three])).toEqual([20, 30]);
      expect(batches).toEqual([[1], [2, 3]]);
      // A full batch does not wait.
      const full = [4, 5, 6].map((i) => group.submit(i));
      await nextTurn();
      expect(batches).toEqual([[1], [2, 3], [4, 5, 6]]);
      await Promise.all(full);
      // Quiet for longer than the spacing: the next call is written at once.
      jest.advanceTimersByTime(11);
      const seven = group.submit(7);
      await nextTurn();
      expect(batches).toEqual([[1], [2, 3], [4, 5, 6], [7]]);
      expect(await seven).toBe(70);
    } finally {
      jest.useRealTimers();
    }
  });

  it('splits at maxBatch and a failure fails exactly the calls of its batch', async () => {
    const w = controlledWrite();
    const group = new GroupCommit({ write: w.write, waitMs: 1000, maxBatch: 2, maxInFlight: 4 });
    const results = [1, -1, 3, 4].map((i) =>
      group.submit(i).then(
        (r) => ({ ok: r }),
        (e: Error) => ({ error: e.message }),
      ),
    );
    await nextTurn();
    expect(w.batches).toEqual([
      [1, -1],
      [3, 4],
    ]);
    w.finishAll();
    expect(await Promise.all(results)).toEqual([{ error: 'refused' }, { error: 'refused' }, { ok: 30 }, { ok: 40 }]);
  });
});

describeWithPostgres('group commit on postgres', (databaseUrl) => {
  const variant = postgresVariant(databaseUrl);
  let ctx: TestStore;
  beforeEach(async () => {
    ctx = await variant.create();
  });
  afterEach(() => ctx.cleanup());

  const push = (i: number): NewPushNotification => ({
    deviceId: `dev-${i}`,
    studentId: String(i),
    type: 'note',
    title: 't',
    body: `#${i}`,
    data: { n: String(i) },
  });

  it('acknowledges each of many concurrent calls with its committed row, and notifies the listeners', async () => {
    const heard: string[] = [];
    const subscription = await ctx.store.outbox.listenForOutbox((channel) => heard.push(channel));
    try {
      const ids = await Promise.all(
        Array.from({ length: 300 }, (_, i) => ctx.store.outbox.enqueuePushNotification(push(i))),
      );
      expect(new Set(ids).size).toBe(300);
      const rows = await ctx.query<{ id: string; body: string }>('select id, body from push_notifications');
      expect(new Map(rows.map((row) => [row.id, row.body]))).toEqual(new Map(ids.map((id, i) => [id, `#${i}`])));
      await queueAuthCode(ctx.store, { phone: '+963944123456', code: '482913', callerAddress: null });
      for (let i = 0; i < 100 && !(heard.includes('push') && heard.includes('sms')); i++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(new Set(heard)).toEqual(new Set(['push', 'sms']));
    } finally {
      await subscription?.close();
    }
  });

  it('answers concurrent student look-ups from one query, each with its own student (or null)', async () => {
    await ctx.store.dataSet.writeDataSet({
      schools: [{ baseUrl: 'https://a.example', name: 'A' }],
      devices: [{ id: 'dev-1', token: 'tok-1' }],
      students: [
        { id: '1', school: 'https://a.example', fullName: 'One', deviceId: 'dev-1', active: '1' },
        { id: '2', school: 'https://a.example', fullName: 'Two', active: '1' },
      ],
    });
    const found = await Promise.all(['2', 'nobody', '1', '2'].map((id) => ctx.store.records.findStudent(id)));
    const school = { schoolTimeZone: 'UTC', quietHours: null, pushOptions: null };
    expect(found).toEqual([
      { studentId: '2', fullName: 'Two', schoolKey: 'https://a.example', deviceId: null, pushToken: null, ...school },
      null,
      {
        studentId: '1',
        fullName: 'One',
        schoolKey: 'https://a.example',
        deviceId: 'dev-1',
        pushToken: 'tok-1',
        ...school,
      },
      { studentId: '2', fullName: 'Two', schoolKey: 'https://a.example', deviceId: null, pushToken: null, ...school },
    ]);
  });

  it('fails exactly the calls of a batch whose statement failed; nothing of it is committed, the batch before it is', async () => {
    const broken = { ...push(99), deviceId: null as unknown as string };
    // A first batch under way, so that the next calls gather into a second one.
    const first = ctx.store.outbox.enqueuePushNotification(push(0));
    await new Promise((resolve) => setImmediate(resolve));
    const results = await Promise.allSettled([
      first,
      ...[push(1), broken, push(2)].map((n) => ctx.store.outbox.enqueuePushNotification(n)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected']);
    expect(await ctx.query('select body from push_notifications')).toEqual([{ body: '#0' }]);
    await expect(ctx.store.outbox.enqueuePushNotification(push(3))).resolves.toEqual(expect.any(String));
  });

  it('keeps the AuthCode limits within one batch: of 10 simultaneous calls for one phone, 3 per 10 minutes pass', async () => {
    const limits: AuthCodeLimit[] = [{ scope: 'phone', max: 3, windowSeconds: 600 }];
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        ctx.store.outbox.admitAuthCode({ phone: '+963944123456', code: '1234', callerAddress: null }, limits),
      ),
    );
    expect(results.filter((r) => r.admitted)).toHaveLength(3);
    expect(results.slice(0, 3).every((r) => r.admitted)).toBe(true);
    expect(await ctx.query('select id from auth_code_messages')).toHaveLength(3);
  });
});
