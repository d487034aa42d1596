// The console's list of messages in the store (migrations 0010, 0015 and 0018,
// src/store/message-history/message-list.ts): every source statement of every
// filter reads an index that ends in (created_at, id), in its order, never
// sorting the table; the rows already there when 0010 runs get their school
// and phone suffix; a push queued since carries its student's school.
import type { MessageListFilter } from '../../src/store';
import { messageListQueries, type MessagePageRequest } from '../../src/store/message-history/message-list';
import { FIXTURES } from '../support/fixtures';
import { compileOnly } from '../support/compile-only';
import { queueAuthCode, storeVariants, type TestStore } from '../support/stores';

const compiler = (dialect: 'sqlite' | 'postgres') => compileOnly<unknown>(dialect);

const NONE: MessageListFilter = {
  status: null,
  channel: null,
  school: null,
  type: null,
  from: null,
  until: null,
  find: null,
  error: null,
};

/** Each filter, and the indexes its sources may read: the list's index of one of its equalities, else of time. */
const FILTERS: Readonly<Record<string, { filter: Partial<MessageListFilter>; indexes: readonly string[] }>> = {
  none: { filter: {}, indexes: ['created'] },
  status: { filter: { status: 'dead' }, indexes: ['status'] },
  // The refused calls (migration 0015) of both channels, by time; the channel is checked on each row.
  refused: { filter: { status: 'refused' }, indexes: ['created'] },
  channel: { filter: { channel: 'sms' }, indexes: ['created'] },
  school: { filter: { school: 'https://school-a.example' }, indexes: ['school_key'] },
  // A type by its own index (migration 0018): a type few messages have reads no more than they are.
  type: { filter: { type: 'absence' }, indexes: ['type'] },
  'type and school': { filter: { type: 'exam', school: 'https://school-a.example' }, indexes: ['type', 'school_key'] },
  'status and school': {
    filter: { status: 'failed', school: 'https://school-a.example' },
    indexes: ['status', 'school_key'],
  },
  'status, type and days': {
    filter: { status: 'sent', type: 'note', from: '2026-03-01T00:00:00.000Z', until: '2026-03-03T00:00:00.000Z' },
    indexes: ['status', 'type'],
  },
  days: { filter: { from: '2026-03-01T00:00:00.000Z', until: '2026-03-03T00:00:00.000Z' }, indexes: ['created'] },
  // A chart's minute (docs/design.md#a-chart-period-is-a-link): instants are bounds as days are, a seek either way.
  "a chart's minute": {
    filter: { from: '2026-03-02T08:00:00.000Z', until: '2026-03-02T08:01:00.000Z' },
    indexes: ['created'],
  },
  "a chart's minute, given up": {
    filter: { status: 'dead', from: '2026-03-02T08:00:00.000Z', until: '2026-03-02T08:01:00.000Z' },
    indexes: ['status'],
  },
  // The last error by its own index (migration 0018), of the messages that have one.
  'last error': { filter: { channel: 'push', error: 'UNREGISTERED' }, indexes: ['last_error'] },
  'last error of both channels': { filter: { error: 'UNREGISTERED' }, indexes: ['last_error'] },
  // Found text is looked up as each thing it may be: a message id by the primary key (one row), a student's
  // messages and a phone's by their indexes.
  'a student, message id or phone': { filter: { find: '1001' }, indexes: ['pkey', 'student_id', 'phone_suffix'] },
  'a phone': {
    filter: { find: '+963 944 123 459', status: 'queued' },
    indexes: ['pkey', 'student_id', 'phone_suffix'],
  },
};

const CURSOR = { createdAt: '2026-03-02T08:00:00.000Z', id: 'm' };
const PAGES: Readonly<Record<string, MessagePageRequest>> = {
  first: { limit: 50 },
  older: { limit: 50, before: CURSOR },
  newer: { limit: 50, after: CURSOR },
};

/** The indexes a plan reads, by the list's short names (`status`, `created`), a primary key as `pkey`. */
const indexesRead = (plan: string): string[] =>
  [
    ...plan.matchAll(
      /(?:push_notifications|auth_code_messages)_(?:list_(\w+?)_idx|pkey)|refused_calls_(?:(?!pkey)(\w+?)_idx|pkey)|sqlite_autoindex_\w+/g,
    ),
  ].map((match) => match[1] ?? match[2] ?? 'pkey');

describe.each(storeVariants())('the list of messages in the store on $name', (variant) => {
  let ctx: TestStore;

  beforeEach(async () => {
    ctx = await variant.create();
  });
  afterEach(() => ctx.cleanup());

  async function plan(sql: string, parameters: readonly unknown[]): Promise<string> {
    if (variant.name === 'sqlite') {
      return (await ctx.query<{ detail: string }>(`explain query plan ${sql}`, parameters))
        .map((row) => row.detail)
        .join('\n');
    }
    // An empty table is cheapest to scan: forbid scans and sorts (on the test's own connection) to see the index.
    await ctx.query('set enable_seqscan = off');
    await ctx.query('set enable_sort = off');
    return (await ctx.query<{ 'QUERY PLAN': string }>(`explain ${sql}`, parameters))
      .map((row) => row['QUERY PLAN'])
      .join('\n');
  }

  it.each(Object.keys(FILTERS))('each source of the filter "%s" reads an index in its order', async (name) => {
    const db = compiler(variant.name);
    for (const [pageName, page] of Object.entries(PAGES)) {
      const { filter, indexes } = FILTERS[name] ?? { filter: {}, indexes: [] };
      const queries = messageListQueries({ ...NONE, ...filter }, page);
      expect(queries.length).toBeGreaterThan(0);
      for (const { query } of queries) {
        const { sql, parameters } = query.compile(db);
        const steps = await plan(sql, parameters);
        const where = `${name}, ${pageName} page: ${sql}\n${steps}`;
        const read = indexesRead(steps);
        // A message id finds one row at most, whichever index finds it, and its sort is of that row.
        const byId = /\bid = (?:\?|\$\d)/.test(sql);
        expect([where, read.length, byId || indexes.includes(read[0] ?? '')]).toEqual([where, 1, true]);
        expect([where, !byId && /TEMP B-TREE|Sort\b|Seq Scan|SCAN \w+$/m.test(steps)]).toEqual([where, false]);
      }
    }
  });

  it('fills the school and the phone suffix of the rows written before migration 0010', async () => {
    await ctx.store.dataSet.writeDataSet(FIXTURES);
    await ctx.store.lifecycle.close();
    await ctx.migrateDownTo('0008_console');
    await ctx.query(
      `insert into push_notifications (id, device_id, student_id, type, title, body, data, status, attempts, next_attempt_at, created_at, updated_at)
       values ('old-push', 'dev-2001', '2001', 'absence', 't', 'b', '{}', 'sent', 1, ?, ?, ?)`,
      Array(3).fill('2026-03-01T08:00:00.000Z'),
    );
    await ctx.query(
      `insert into auth_code_messages (id, phone, code, status, attempts, next_attempt_at, created_at, updated_at)
       values ('old-sms', '+963944123459', '13579', 'sent', 1, ?, ?, ?)`,
      Array(3).fill('2026-03-01T08:00:00.000Z'),
    );
    const store = await ctx.reopen();
    const [student] = await ctx.query<{ school_key: string }>("select school_key from students where id = '2001'");
    const bySchool = await store.console.listMessages({ ...NONE, school: student?.school_key ?? '' }, { limit: 5 });
    expect(bySchool.items.map((item) => item.id)).toEqual(['old-push']);
    const byPhone = await store.console.listMessages({ ...NONE, find: '3459' }, { limit: 5 });
    expect(byPhone.items.map((item) => [item.id, item.phone])).toEqual([['old-sms', '+963944123459']]);
    expect(await ctx.query("select phone_suffix from auth_code_messages where id = 'old-sms'")).toEqual([
      { phone_suffix: '3459' },
    ]);
  });

  it("keeps with each push queued the school its caller gives, else its student's, and none for a student it does not know", async () => {
    await ctx.store.dataSet.writeDataSet(FIXTURES);
    const push = (studentId: string, schoolKey?: string) =>
      ctx.store.outbox.enqueuePushNotification({
        deviceId: 'dev-1001',
        studentId,
        type: 'absence',
        title: 't',
        body: 'b',
        data: {},
        ...(schoolKey === undefined ? {} : { schoolKey }),
      });
    const known = await push('1001');
    const unknown = await push('no-such-student');
    // SendNotificationType gives the school it looked up: kept as given, nothing looked up again.
    const given = await push('1001', 'https://given.example');
    await queueAuthCode(ctx.store, { phone: '+963955667788', code: '24680', callerAddress: null });
    const rows = await ctx.query<{ id: string; school_key: string | null }>(
      'select p.id, p.school_key from push_notifications p order by p.id',
    );
    const [student] = await ctx.query<{ school_key: string }>("select school_key from students where id = '1001'");
    expect(new Map(rows.map((row) => [row.id, row.school_key]))).toEqual(
      new Map([
        [known, student?.school_key],
        [unknown, null],
        [given, 'https://given.example'],
      ]),
    );
  });
});
