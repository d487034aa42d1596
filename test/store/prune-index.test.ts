// Migration 0003: the retention prune (finished rows older than a cut-off)
// reads an index on (status, updated_at), not the whole outbox. The plan is
// that of the prune's own statement, compiled for each dialect. Migration
// 0005: no outbox index is left that nothing reads (each costs a write on
// every claim, completion and insert). Migration 0020: that index holds only
// settled rows (not queued, not sending), and each of its readers (the
// prune, the dead letters newest first, the overview's retrying and given-up
// counts) still reads it: each must spell its condition as the index does.
import type { CompiledQuery, Kysely } from 'kysely';
import type { StoreDatabase } from '../../src/store/database';
import { listDead } from '../../src/store/message-history/dead-letters';
import { finishedBefore, type OutboxChannel } from '../../src/store/outbox/outbox-admin';
import { oldestDueOnSqlite } from '../../src/store/outbox/outbox-claims';
import { compileOnly } from '../support/compile-only';
import { storeVariants, type TestStore } from '../support/stores';

const compiler = (dialect: 'sqlite' | 'postgres') => compileOnly<StoreDatabase>(dialect);

/** The statements a store function runs, compiled for `dialect` and never executed (each reads no rows). */
async function statementsOf(
  dialect: 'sqlite' | 'postgres',
  run: (db: Kysely<StoreDatabase>) => Promise<unknown>,
): Promise<CompiledQuery[]> {
  const seen: CompiledQuery[] = [];
  await run(compileOnly<StoreDatabase>(dialect, (query) => seen.push(query)));
  return seen;
}

describe.each(storeVariants())('outbox prune index on $name', (variant) => {
  let ctx: TestStore;

  beforeEach(async () => {
    ctx = await variant.create();
  });
  afterEach(() => ctx.cleanup());

  const planOf = async ({ sql, parameters }: { sql: string; parameters: readonly unknown[] }): Promise<string> => {
    if (variant.name === 'sqlite')
      return (await ctx.query<{ detail: string }>(`explain query plan ${sql}`, parameters))
        .map((row) => row.detail)
        .join('\n');
    // An empty table is cheapest to scan: forbid scans (on the test's own
    // connection) and see whether an index is there to use.
    await ctx.query('set enable_seqscan = off');
    return (await ctx.query<{ 'QUERY PLAN': string }>(`explain ${sql}`, parameters))
      .map((row) => row['QUERY PLAN'])
      .join('\n');
  };

  it.each([
    ['push', 'push_notifications'],
    ['sms', 'auth_code_messages'],
  ] as const)(
    'the prune of %s messages reads %s through the settled (status, updated_at) index',
    async (channel: OutboxChannel, table) => {
      const statement = finishedBefore(compiler(variant.name), channel, '2026-01-01T00:00:00.000Z', 500).compile();
      expect(await planOf(statement)).toContain(`${table}_settled_idx`);
    },
  );

  // A rolling upgrade (PostgreSQL only) runs the previous release's prune beside the settled index:
  // its statement, with the statuses as parameters and no settled condition, must still find it.
  (variant.name === 'postgres' ? it : it.skip).each(['push_notifications', 'auth_code_messages'] as const)(
    "the previous release's prune of %s reads the settled index on PostgreSQL",
    async (table) => {
      const statement = compiler('postgres')
        .selectFrom(table)
        .select('id')
        .where('status', 'in', ['sent', 'dead', 'uncertain'])
        .where('updated_at', '<', '2026-01-01T00:00:00.000Z')
        .limit(500)
        .compile();
      expect(await planOf(statement)).toContain(`${table}_settled_idx`);
    },
  );

  it.each([
    ['push', 'push_notifications'],
    ['sms', 'auth_code_messages'],
  ] as const)('the dead letters of %s, newest first, read %s through the settled index', async (channel, table) => {
    const statements = await statementsOf(variant.name, (db) =>
      listDead(db, channel, { errors: null, dismissed: false }, { limit: 20 }),
    );
    const page = statements.filter((statement) => /order by updated_at/.test(statement.sql));
    expect(page).toHaveLength(1);
    expect(await planOf(page[0])).toContain(`${table}_settled_idx`);
  });

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
    const expected = [`${table}_due_idx`, `${table}_settled_idx`, ...list('created', 'status', 'last_error')];
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
