// The overview's chart reads each table from the start of its period on an
// index that starts with the time queued (docs/design.md#a-chart-period-is-a-link),
// never the whole table: on push notifications and login codes
// `(created_at, id)` of migration 0010, on refused calls that of 0015.
import { activityQueries } from '../../src/store/message-history/console-overview';
import { compileOnly } from '../support/compile-only';
import { storeVariants, type TestStore } from '../support/stores';

describe.each(storeVariants())("the overview's chart on $name", (variant) => {
  let ctx: TestStore;

  beforeEach(async () => {
    ctx = await variant.create();
  });
  afterEach(() => ctx.cleanup());

  it.each([10, 13, 16] as const)(
    'reads its period by the time queued, on an index (bucket width %i)',
    async (width) => {
      const queries = activityQueries(compileOnly(variant.name), '2026-03-02T08:00', width);
      expect(queries).toHaveLength(3);
      const plans: string[] = [];
      if (variant.name === 'postgres') await ctx.query('set enable_seqscan = off');
      for (const query of queries) {
        const { sql, parameters } = query.compile();
        plans.push(
          variant.name === 'sqlite'
            ? (await ctx.query<{ detail: string }>(`explain query plan ${sql}`, parameters))
                .map((r) => r.detail)
                .join('\n')
            : (await ctx.query<{ 'QUERY PLAN': string }>(`explain ${sql}`, parameters))
                .map((r) => r['QUERY PLAN'])
                .join('\n'),
        );
      }
      const [push, sms, refused] = plans;
      for (const plan of plans)
        expect(plan).not.toMatch(/Seq Scan|SCAN (push_notifications|auth_code_messages|refused_calls)\b(?! USING)/);
      expect(push).toMatch(/push_notifications_list_(created|status)_idx/);
      expect(sms).toMatch(/auth_code_messages_list_(created|status)_idx/);
      expect(refused).toContain('refused_calls_created_idx');
    },
  );
});
