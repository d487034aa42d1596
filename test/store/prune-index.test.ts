// Migration 0003: the retention prune (finished rows older than a cut-off)
// reads an index on (status, updated_at), not the whole outbox. The plan is
// that of the prune's own statement, compiled for each dialect.
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import type { StoreDatabase } from '../../src/store/database';
import { finishedBefore, type OutboxChannel } from '../../src/store/outbox-admin';
import { storeVariants, type TestStore } from '../support/stores';

// Compiles only: it never connects.
function compiler(dialect: 'sqlite' | 'postgres'): Kysely<StoreDatabase> {
  const sqlite = dialect === 'sqlite';
  return new Kysely<StoreDatabase>({
    dialect: {
      createAdapter: () => (sqlite ? new SqliteAdapter() : new PostgresAdapter()),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => (sqlite ? new SqliteIntrospector(db) : new PostgresIntrospector(db)),
      createQueryCompiler: () => (sqlite ? new SqliteQueryCompiler() : new PostgresQueryCompiler()),
    },
  });
}

describe.each(storeVariants())('outbox prune index on $name', (variant) => {
  let ctx: TestStore;

  beforeEach(async () => {
    ctx = await variant.create();
  });
  afterEach(() => ctx.cleanup());

  it.each([
    ['push', 'push_notifications'],
    ['sms', 'auth_code_messages'],
  ] as const)('the prune of %s messages reads %s through the (status, updated_at) index', async (channel: OutboxChannel, table) => {
    const { sql, parameters } = finishedBefore(compiler(variant.name === 'sqlite' ? 'sqlite' : 'postgres'), channel, '2026-01-01T00:00:00.000Z', 500).compile();
    let plan: string;
    if (variant.name === 'sqlite') {
      plan = (await ctx.query<{ detail: string }>(`explain query plan ${sql}`, parameters)).map((row) => row.detail).join('\n');
    } else {
      // An empty table is cheapest to scan: forbid scans (on the test's own
      // connection) and see whether an index is there to use.
      await ctx.query('set enable_seqscan = off');
      plan = (await ctx.query<{ 'QUERY PLAN': string }>(`explain ${sql}`, parameters)).map((row) => row['QUERY PLAN']).join('\n');
    }
    expect(plan).toContain(`${table}_status_updated_idx`);
  });
});
