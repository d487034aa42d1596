// Migration 0003: the retention prune (finished rows older than a cut-off)
// reads an index on (status, updated_at), not the whole outbox. The plan is
// that of the prune's own statement, compiled for each dialect. Migration
// 0005: no outbox index is left that nothing reads (each costs a write on
// every claim, completion and insert).
import type { StoreDatabase } from '../../src/store/database';
import { finishedBefore, type OutboxChannel } from '../../src/store/outbox/outbox-admin';
import { oldestDueOnSqlite } from '../../src/store/outbox/outbox-claims';
import { compileOnly } from '../support/compile-only';
import { storeVariants, type TestStore } from '../support/stores';

const compiler = (dialect: 'sqlite' | 'postgres') => compileOnly<StoreDatabase>(dialect);

describe.each(storeVariants())('outbox prune index on $name', (variant) => {
  let ctx: TestStore;

  beforeEach(async () => {
    ctx = await variant.create();
  });
  afterEach(() => ctx.cleanup());

  it.each([
    ['push', 'push_notifications'],
    ['sms', 'auth_code_messages'],
  ] as const)(
    'the prune of %s messages reads %s through the (status, updated_at) index',
    async (channel: OutboxChannel, table) => {
      const { sql, parameters } = finishedBefore(
        compiler(variant.name),
        channel,
        '2026-01-01T00:00:00.000Z',
        500,
      ).compile();
      let plan: string;
      if (variant.name === 'sqlite') {
        plan = (await ctx.query<{ detail: string }>(`explain query plan ${sql}`, parameters))
          .map((row) => row.detail)
          .join('\n');
      } else {
        // An empty table is cheapest to scan: forbid scans (on the test's own
        // connection) and see whether an index is there to use.
        await ctx.query('set enable_seqscan = off');
        plan = (await ctx.query<{ 'QUERY PLAN': string }>(`explain ${sql}`, parameters))
          .map((row) => row['QUERY PLAN'])
          .join('\n');
      }
      expect(plan).toContain(`${table}_status_updated_idx`);
    },
  );

  it.each(['push_notifications', 'auth_code_messages'])('%s keeps only the indexes something reads', async (table) => {
    const names =
      variant.name === 'sqlite'
        ? (
            await ctx.query<{ name: string }>(
              "select name from sqlite_master where type = 'index' and tbl_name = ? and sql is not null",
              [table],
            )
          ).map((row) => row.name)
        : (
            await ctx.query<{ indexname: string }>(
              'select indexname from pg_indexes where schemaname = current_schema() and tablename = ?',
              [table],
            )
          )
            .map((row) => row.indexname)
            .filter((name) => name !== `${table}_pkey`);
    // The console's list of messages: one index per filter, each ending in (created_at, id) (migration 0010).
    const list = (...columns: string[]) => columns.map((column) => `${table}_list_${column}_idx`);
    // The last error's filter and the overview's error links, on both channels; the type's on pushes (migration 0018).
    const expected = [`${table}_due_idx`, `${table}_status_updated_idx`, ...list('created', 'status', 'last_error')];
    if (table === 'push_notifications') expected.push(...list('school_key', 'student_id', 'type'));
    // The AuthCode limits count by phone, by caller and in all (auth-code-admission.ts; in all by list_created).
    if (table === 'auth_code_messages')
      expected.push(
        'auth_code_messages_caller_created_idx',
        'auth_code_messages_phone_created_idx',
        ...list('phone_suffix'),
      );
    expect(names.sort()).toEqual(expected.sort());
  });

  it.each([
    ['push_notifications', 'push'],
    ['auth_code_messages', 'sms'],
  ] as const)('readiness finds the oldest due %s through the due index, without sorting', async (table, channel) => {
    if (variant.name !== 'sqlite') return;
    const { sql, parameters } = oldestDueOnSqlite(channel, '2026-01-01T00:00:00.000Z').compile(compiler('sqlite'));
    const plan = (await ctx.query<{ detail: string }>(`explain query plan ${sql}`, parameters))
      .map((row) => row.detail)
      .join('\n');
    expect(plan).toContain(`${table}_due_idx`);
    expect(plan).not.toContain('TEMP B-TREE');
  });
});
