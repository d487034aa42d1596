// Records an import wrote into SQLite before the fields refused a NUL
// (docs/operating.md#records-holding-a-nul): `npm run import -- --repair-nul`
// lists them and writes each back with its NULs dropped, through the
// import's checks; a record whose key holds one is listed and left. On
// PostgreSQL no record can hold one: the same command finds none.
import { main as importMain } from '../../src/cli/import';
import { formatNulRecords, repairNulRecords } from '../../src/import';
import { captureCommandOutput } from '../support/command-output';
import { FIXTURES } from '../support/fixtures';
import { storeVariants, type TestStore } from '../support/stores';

describe.each(storeVariants())('records holding a NUL on $name', (variant) => {
  let testStore: TestStore;
  beforeEach(async () => {
    testStore = await variant.create();
    await testStore.store.dataSet.writeDataSet(FIXTURES);
  });
  afterEach(() => testStore.cleanup());

  /** What an import before the fix could leave in SQLite; PostgreSQL refuses every one of these writes. */
  async function seedNuls(): Promise<void> {
    await testStore.query('update students set full_name = ? where id = ?', ['Ahmad\0 Ali', '1001']);
    await testStore.query('update devices set push_token = ? where id = ?', ['fcm:AAAA\0-1002', 'dev-1002']);
    await testStore.query('update notes set text = ? where id = ?', ['Late\0', 'n1']);
    await testStore.query('update absences set absence_date = ? where id = ?', ['2026-10-01\0x', 'a1']);
    await testStore.query('insert into devices (id, push_token, platform, updated_at) values (?, ?, ?, ?)', [
      'dev-9\0',
      'fcm:9',
      'android',
      new Date().toISOString(),
    ]);
  }

  const stored = async () => ({
    name: (await testStore.query<{ v: string }>('select full_name as v from students where id = ?', ['1001']))[0]?.v,
    token: (await testStore.query<{ v: string }>('select push_token as v from devices where id = ?', ['dev-1002']))[0]
      ?.v,
    text: (await testStore.query<{ v: string }>('select text as v from notes where id = ?', ['n1']))[0]?.v,
    date: (await testStore.query<{ v: string }>('select absence_date as v from absences where id = ?', ['a1']))[0]?.v,
  });

  if (variant.name === 'postgres') {
    it('finds none: PostgreSQL holds no NUL in a text', async () => {
      await expect(seedNuls()).rejects.toThrow();
      const repair = await repairNulRecords(testStore.store.dataSet);
      expect(repair).toEqual({ found: [], report: null });
      expect(formatNulRecords(repair.found)).toBe('No stored record holds a NUL character.\n');
    });
    return;
  }

  it('lists them with their fields, never their values, and a dry run writes nothing', async () => {
    await seedNuls();
    const before = await stored();
    const repair = await repairNulRecords(testStore.store.dataSet, { dryRun: true });
    expect(repair.found).toEqual([
      { collection: 'devices', key: 'dev-1002', fields: ['token'], keyHoldsNul: false },
      { collection: 'devices', key: 'dev-9\uFFFD', fields: ['id'], keyHoldsNul: true },
      { collection: 'students', key: '1001', fields: ['fullName'], keyHoldsNul: false },
      { collection: 'notes', key: 'n1', fields: ['text'], keyHoldsNul: false },
      { collection: 'absences', key: 'a1', fields: ['date'], keyHoldsNul: false },
    ]);
    const text = formatNulRecords(repair.found);
    expect(text).toContain('record 1 (devices) dev-1002: token\n');
    expect(text).toContain('record 2 (devices) dev-9\uFFFD: id (its key holds the NUL: left as it is;');
    expect(text).not.toMatch(/Ahmad|fcm:/);
    expect(repair.report?.status).toBe('checked');
    expect(repair.report?.rejected).toEqual([
      expect.objectContaining({ line: 5, collection: 'absences', reason: expect.stringContaining('date') }),
    ]);
    expect(await stored()).toEqual(before);
  });

  it('writes each back with its NULs dropped, leaving one that would become invalid', async () => {
    await seedNuls();
    const repair = await repairNulRecords(testStore.store.dataSet);
    expect(repair.report?.status).toBe('written');
    expect(await stored()).toEqual({ name: 'Ahmad Ali', token: 'fcm:AAAA-1002', text: 'Late', date: '2026-10-01\0x' });
    // Saved again unchanged now, as the console's and the admin API's forms do.
    const student = await testStore.store.admin.getRecord('students', '1001');
    await expect(testStore.store.dataSet.writeDataSet({ students: [student as never] })).resolves.toBeDefined();
    // What is left: the absence, whose date is not one without its NUL either, and the device whose key holds one.
    const again = await repairNulRecords(testStore.store.dataSet, { dryRun: true });
    expect(again.found.map((r) => `${r.collection} ${r.key}`)).toEqual(['devices dev-9\uFFFD', 'absences a1']);
  });

  it('as a command: the list and the report on stdout, 1 while some are left, 0 once none are, 2 for bad usage', async () => {
    const output = captureCommandOutput();
    const saved = { DATA_DIR: process.env.DATA_DIR, DATABASE_URL: process.env.DATABASE_URL };
    process.env.DATA_DIR = testStore.options.dataDir;
    process.env.DATABASE_URL = '';
    try {
      await seedNuls();
      expect(await importMain(['--repair-nul', '--dry-run'])).toBe(1);
      expect(output.text()).toContain('Stored records holding a NUL character: 5');
      expect(output.text()).toContain('stored records holding a NUL');
      expect(output.text()).toContain('record 5 (absences): date');
      expect(await stored()).toMatchObject({ name: 'Ahmad\0 Ali' });
      expect(await importMain(['--repair-nul'])).toBe(1);
      expect(await stored()).toMatchObject({ name: 'Ahmad Ali' });
      await testStore.query('delete from devices where id = ?', ['dev-9\0']);
      await testStore.query('update absences set absence_date = ? where id = ?', ['2026-10-02\0', 'a1']);
      expect(await importMain(['--repair-nul'])).toBe(0);
      output.clear();
      expect(await importMain(['--repair-nul'])).toBe(0);
      expect(output.text()).toBe('No stored record holds a NUL character.\n');
      expect(await importMain(['--repair-nul', '--strict'])).toBe(2);
    } finally {
      Object.assign(process.env, saved);
      jest.restoreAllMocks();
    }
  });
});
