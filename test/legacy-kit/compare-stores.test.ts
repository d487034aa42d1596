// npm run compare with the candidate on each store (docs/migration.md#compare):
// a candidate on PostgreSQL, seeded with the primary's data, answers every
// generated request as the primary on SQLite does.
import { storeVariants, type TestStore } from '../support/stores';
import { dataFile, runCompare, startInstance, tableRow, tempDir, type Instance } from './support';

describe.each(storeVariants())('npm run compare, the candidate on $name', (variant) => {
  let primary: Instance;
  let candidate: Instance;
  let ctx: TestStore;

  beforeAll(async () => {
    primary = await startInstance();
    ctx = await variant.create();
    candidate = await startInstance(undefined, undefined, ctx.store);
  });
  afterAll(async () => {
    await candidate.close();
    await primary.close();
    await ctx.cleanup();
  });

  it('finds nothing unexplained against a primary on SQLite with the same data', async () => {
    const run = await runCompare([
      '--primary',
      primary.base,
      '--candidate',
      candidate.base,
      '--data',
      dataFile(tempDir()),
    ]);
    expect(run.stdout).toContain('Nothing unexplained differs.');
    expect(run.code).toBe(0);
    for (const binding of ['soap11', 'soap12', 'http_get', 'http_post']) {
      expect(tableRow(run.stdout, 'GetStudentSchool', binding)).toMatchObject({ differs: 0, error: 0 });
      expect(tableRow(run.stdout, 'GetStudentsAudtiNote', binding)).toMatchObject({ differs: 0, error: 0 });
    }
  });
});
