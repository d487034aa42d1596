// Migration 0003: the retention prune (sent and dead rows older than a
// cut-off) reads an index on (status, updated_at), not the whole outbox.
import { storeVariants, type TestStore } from '../support/stores';

const PRUNE_QUERY = "select id from {table} where status in ('sent', 'dead') and updated_at < '2026-01-01T00:00:00.000Z' limit 500";

describe.each(storeVariants())('outbox prune index on $name', (variant) => {
  let ctx: TestStore;

  beforeEach(async () => {
    ctx = await variant.create();
  });
  afterEach(() => ctx.cleanup());

  it.each(['push_notifications', 'auth_code_messages'])('the prune of %s uses the (status, updated_at) index', async (table) => {
    const query = PRUNE_QUERY.replace('{table}', table);
    let plan: string;
    if (variant.name === 'sqlite') {
      plan = (await ctx.query<{ detail: string }>(`explain query plan ${query}`)).map((row) => row.detail).join('\n');
    } else {
      // An empty table is cheapest to scan: forbid scans (on the test's own
      // connection) and see whether an index is there to use.
      await ctx.query('set enable_seqscan = off');
      plan = (await ctx.query<{ 'QUERY PLAN': string }>(`explain ${query}`)).map((row) => row['QUERY PLAN']).join('\n');
    }
    expect(plan).toContain(`${table}_status_updated_idx`);
  });
});
