// The overview's read-through funnel reads indexes, never a whole table
// (docs/console.md#overview): the notifications of the period by the index
// (created_at, id) of migration 0010, and each one's reading by the notes'
// (student_id, type) or the absences' (student_id, absence_date) of 0001.
import { readFunnelQuery } from '../../src/store/message-history/read-funnel';
import { compileOnly } from '../support/compile-only';
import { storeVariants, type TestStore } from '../support/stores';

describe.each(storeVariants())('the read-through funnel on $name', (variant) => {
  let ctx: TestStore;

  beforeEach(async () => {
    ctx = await variant.create();
  });
  afterEach(() => ctx.cleanup());

  it('reads the period on an index and each reading by the student', async () => {
    const { sql, parameters } = readFunnelQuery('2026-03-01', 101).compile(compileOnly(variant.name));
    let plan: string;
    if (variant.name === 'sqlite') {
      plan = (await ctx.query<{ detail: string }>(`explain query plan ${sql}`, parameters))
        .map((row) => row.detail)
        .join('\n');
      expect(plan).not.toMatch(/SCAN (p|a|n|push_notifications|notes|absences)\b(?! USING)/);
    } else {
      // An empty table is cheapest to scan: forbid scans (on the test's own connection) to see the indexes.
      await ctx.query('set enable_seqscan = off');
      plan = (await ctx.query<{ 'QUERY PLAN': string }>(`explain ${sql}`, parameters))
        .map((row) => row['QUERY PLAN'])
        .join('\n');
      expect(plan).not.toMatch(/Seq Scan/);
    }
    expect(plan).toContain('push_notifications_list_created_idx');
    expect(plan).toContain('notes_student_type_idx');
    expect(plan).toContain('absences_student_date_idx');
  });
});
