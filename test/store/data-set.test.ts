import { InvalidDataSetError, type DataSet } from '../../src/store';
import { freshStorePerTest, storeVariants } from '../support/stores';
import { SCHOOL_A, STORE_FIXTURE } from './store-fixture';

const TABLES = ['schools', 'students', 'devices', 'notes', 'absences'] as const;

describe.each(storeVariants())('writeDataSet on $name', (variant) => {
  const fresh = freshStorePerTest(variant);
  const { clock } = fresh;

  async function dump(): Promise<Record<string, unknown[]>> {
    const tables: Record<string, unknown[]> = {};
    for (const table of TABLES) {
      const key = table === 'schools' ? 'key' : 'id';
      tables[table] = (await fresh.ctx.query(`select * from ${table} order by ${key}`)).map((row) =>
        // SQLite and PostgreSQL may differ in number types; compare values.
        Object.fromEntries(
          Object.entries(row).map(([column, value]) => [column, typeof value === 'bigint' ? Number(value) : value]),
        ),
      );
    }
    return tables;
  }

  it('counts the distinct records written', async () => {
    expect(await fresh.ctx.store.dataSet.writeDataSet(STORE_FIXTURE)).toEqual({
      schools: 2,
      students: 8,
      devices: 3,
      notes: 9,
      absences: 4,
    });
    expect(await fresh.ctx.store.dataSet.writeDataSet({})).toEqual({
      schools: 0,
      students: 0,
      devices: 0,
      notes: 0,
      absences: 0,
    });
  });

  it('is idempotent: a second write gives the same counts and rows', async () => {
    const first = await fresh.ctx.store.dataSet.writeDataSet(STORE_FIXTURE);
    const before = await dump();
    clock.set('2031-06-06T06:06:06.000Z');
    expect(await fresh.ctx.store.dataSet.writeDataSet(STORE_FIXTURE)).toEqual(first);
    expect(await dump()).toEqual(before);
  });

  it('stores the normalised school key and UTC note dates', async () => {
    await fresh.ctx.store.dataSet.writeDataSet(STORE_FIXTURE);
    expect(await fresh.ctx.query('select key, base_url, name from schools order by key')).toEqual([
      { key: 'https://alnoor.school.example', base_url: SCHOOL_A, name: 'مدرسة النور' },
      {
        key: 'https://riverside.school.example',
        base_url: 'https://Riverside.School.Example/',
        name: 'Riverside Academy',
      },
    ]);
    expect(await fresh.ctx.query('select note_date from notes where id = ?', ['n-9'])).toEqual([
      { note_date: '2025-10-06T07:00:00.000Z' },
    ]);
    await fresh.ctx.store.dataSet.writeDataSet({
      notes: [
        { id: 'x-1', studentId: '1002', type: 'general', text: '', date: '2025-10-06' },
        { id: 'x-2', studentId: '1002', type: 'general', text: 't', date: '2025-10-06T10:00' },
        { id: 'x-3', studentId: '1002', type: 'general', text: 't', date: '2025-10-06T10:00:00-0130' },
      ],
    });
    expect(await fresh.ctx.query("select id, note_date from notes where id like 'x-%' order by id")).toEqual([
      { id: 'x-1', note_date: '2025-10-06T00:00:00.000Z' },
      { id: 'x-2', note_date: '2025-10-06T10:00:00.000Z' },
      { id: 'x-3', note_date: '2025-10-06T11:30:00.000Z' },
    ]);
  });

  it('updates existing records by key', async () => {
    await fresh.ctx.store.dataSet.writeDataSet(STORE_FIXTURE);
    clock.set('2030-05-05T00:00:00.000Z');
    await fresh.ctx.store.dataSet.writeDataSet({
      schools: [{ baseUrl: 'HTTPS://ALNOOR.SCHOOL.EXAMPLE/', name: 'Al Noor School' }],
      devices: [{ id: 'dev-1', token: 'tok-1-new', platform: 'ios' }],
      students: [
        { id: '1002', school: SCHOOL_A, fullName: 'Ahmad Ali Hasan', deviceId: null, active: '0', classId: '8A' },
      ],
      notes: [
        {
          id: 'n-1',
          studentId: '1002',
          type: 'audit',
          subjectId: 'SCI',
          classId: '7A',
          text: 'Changed',
          date: '2025-11-01T00:00:00Z',
          badge: null,
          state: 'read',
        },
      ],
      absences: [{ id: 'a-1', studentId: '1002', date: '2025-10-03', type: 'late', reason: null, seen: true }],
    });
    expect(
      await fresh.ctx.query('select key, base_url, name from schools where key = ?', ['https://alnoor.school.example']),
    ).toEqual([
      { key: 'https://alnoor.school.example', base_url: 'HTTPS://ALNOOR.SCHOOL.EXAMPLE/', name: 'Al Noor School' },
    ]);
    expect(await fresh.ctx.store.records.getDeviceToken('dev-1')).toBe('tok-1-new');
    expect(await fresh.ctx.query('select id, updated_at from devices order by id')).toEqual([
      { id: 'dev-1', updated_at: '2030-05-05T00:00:00.000Z' },
      { id: 'dev-2', updated_at: '2030-01-01T00:00:00.000Z' },
      { id: 'dev-3', updated_at: '2030-01-01T00:00:00.000Z' },
    ]);
    expect(await fresh.ctx.store.records.findStudent('1002')).toMatchObject({
      fullName: 'Ahmad Ali Hasan',
      deviceId: null,
      pushToken: null,
    });
    expect(
      (await fresh.ctx.store.records.listStudentsOfSchool('https://alnoor.school.example', '0')).map(
        (s) => s.studentId,
      ),
    ).toEqual(['1002', '1007']);
    expect(await fresh.ctx.store.records.listAuditNotes('SCI', '7A')).toEqual([
      expect.objectContaining({
        id: 'n-1',
        text: 'Changed',
        date: '2025-11-01T00:00:00.000Z',
        state: 'read',
        badge: null,
      }),
      expect.objectContaining({ id: 'n-4' }),
    ]);
    expect(await fresh.ctx.query('select read_at from notes where id = ?', ['n-1'])).toEqual([
      { read_at: '2030-05-05T00:00:00.000Z' },
    ]);
    expect(await fresh.ctx.query('select absence_date, type, seen_at from absences where id = ?', ['a-1'])).toEqual([
      { absence_date: '2025-10-03', type: 'late', seen_at: '2030-05-05T00:00:00.000Z' },
    ]);
  });

  it('keeps stored values of fields left out, and clears those given as null or empty', async () => {
    await fresh.ctx.store.dataSet.writeDataSet(STORE_FIXTURE);
    await fresh.ctx.store.records.markNotesRead('1002', 'audit');
    await fresh.ctx.store.records.listAbsencesMarkSeen('1002');
    await fresh.ctx.store.dataSet.writeDataSet({
      devices: [{ id: 'dev-1' }, { id: 'dev-2', token: '' }],
      students: [{ id: '1010', school: SCHOOL_A, fullName: 'Ahmad Ali' }],
      notes: [{ id: 'n-1', studentId: '1002', type: 'audit', text: 'Homework missing', date: '2025-10-06T08:15:00Z' }],
      absences: [{ id: 'a-1', studentId: '1002', date: '2025-10-02', type: 'full-day' }],
    });
    expect(await fresh.ctx.store.records.getDeviceToken('dev-1')).toBe('tok-1');
    expect(await fresh.ctx.store.records.getDeviceToken('dev-2')).toBeNull();
    expect(await fresh.ctx.store.records.findStudent('1010')).toMatchObject({ deviceId: 'dev-2' });
    expect((await fresh.ctx.store.records.listStudentsOfSchool(SCHOOL_A, '1')).map((s) => s.studentId)).toContain(
      '1010',
    );
    const [note] = await fresh.ctx.query<{ state: string; subject_id: string; badge: string }>(
      'select state, subject_id, badge from notes where id = ?',
      ['n-1'],
    );
    expect(note).toEqual({ state: 'read', subject_id: 'MATH', badge: '1' });
    const [absence] = await fresh.ctx.query<{ seen: number; reason: string }>(
      'select seen, reason from absences where id = ?',
      ['a-1'],
    );
    expect({ seen: Number(absence?.seen), reason: absence?.reason }).toEqual({ seen: 1, reason: 'مريض' });
  });

  it('fills defaults for new records', async () => {
    await fresh.ctx.store.dataSet.writeDataSet({
      schools: [{ baseUrl: SCHOOL_A, name: 'A' }],
      devices: [{ id: 'd' }],
      students: [{ id: 's', school: SCHOOL_A, fullName: 'S' }],
      notes: [{ id: 'n', studentId: 's', type: 'general', text: 'x', date: '2025-01-01T00:00:00Z' }],
      absences: [{ id: 'a', studentId: 's', date: '2025-01-01', type: 'late' }],
    });
    expect(await fresh.ctx.store.records.findStudent('s')).toEqual({
      studentId: 's',
      fullName: 'S',
      schoolKey: SCHOOL_A,
      deviceId: null,
      pushToken: null,
      schoolTimeZone: 'UTC',
      quietHours: null,
      pushOptions: null,
    });
    expect(await fresh.ctx.store.records.listStudentsOfSchool(SCHOOL_A, '1')).toHaveLength(1);
    expect(await fresh.ctx.store.records.markNotesRead('s', 'general')).toEqual([
      expect.objectContaining({ badge: null, subjectId: null, classId: null }),
    ]);
    expect(await fresh.ctx.store.records.listAbsencesMarkSeen('s')).toEqual([
      expect.objectContaining({ seen: false, reason: null }),
    ]);
  });

  it('lets the last of repeated keys win and counts it once', async () => {
    const counts = await fresh.ctx.store.dataSet.writeDataSet({
      schools: [
        { baseUrl: SCHOOL_A, name: 'first' },
        { baseUrl: `${SCHOOL_A}/`, name: 'second' },
      ],
      devices: [
        { id: 'd', token: 'one' },
        { id: 'd', token: 'two' },
      ],
    });
    expect(counts).toMatchObject({ schools: 1, devices: 1 });
    expect(await fresh.ctx.query('select name from schools')).toEqual([{ name: 'second' }]);
    expect(await fresh.ctx.store.records.getDeviceToken('d')).toBe('two');
  });

  it('writes large data sets in batches and reports progress', async () => {
    const students = Array.from({ length: 1_234 }, (_, index) => ({
      id: String(100_000 + index),
      school: SCHOOL_A,
      fullName: `Student ${String(index).padStart(5, '0')}`,
      active: index % 2 === 0 ? ('1' as const) : ('0' as const),
    }));
    const progress: Array<[string, number, number]> = [];
    const counts = await fresh.ctx.store.dataSet.writeDataSet(
      { schools: [{ baseUrl: SCHOOL_A, name: 'A' }], students },
      { onProgress: (collection, written, total) => progress.push([collection, written, total]) },
    );
    expect(counts.students).toBe(1_234);
    expect(progress).toEqual([
      ['schools', 1, 1],
      ['students', 500, 1_234],
      ['students', 1_000, 1_234],
      ['students', 1_234, 1_234],
    ]);
    expect(await fresh.ctx.store.records.listStudentsOfSchool(SCHOOL_A, '1')).toHaveLength(617);
  });

  describe('refusals', () => {
    const refusals: Array<[string, DataSet, string]> = [
      ['a missing id', { devices: [{ id: ' ' }] }, 'devices[0].id'],
      [
        'a bad active flag',
        { students: [{ id: '1', school: SCHOOL_A, fullName: 'x', active: 'yes' as never }] },
        'students[0].active',
      ],
      ['a bad platform', { devices: [{ id: 'd', platform: 'symbian' as never }] }, 'devices[0].platform'],
      [
        'a bad note state',
        { notes: [{ id: 'n', studentId: 's', type: 't', text: '', date: '2025-01-01', state: 'gone' as never }] },
        'notes[0].state',
      ],
      [
        'a bad note date',
        { notes: [{ id: 'n', studentId: 's', type: 't', text: '', date: '01/02/2025' }] },
        'notes[0].date',
      ],
      [
        'an impossible date',
        { absences: [{ id: 'a', studentId: 's', type: 't', date: '2025-02-30' }] },
        'absences[0].date',
      ],
      [
        'a bad seen flag',
        { absences: [{ id: 'a', studentId: 's', type: 't', date: '2025-02-03', seen: 'maybe' as never }] },
        'absences[0].seen',
      ],
      ['a collection that is not a list', { schools: {} as never }, 'schools'],
    ];

    it.each(refusals)('refuses %s with its path and writes nothing', async (_, dataSet, path) => {
      const attempt = fresh.ctx.store.dataSet.writeDataSet({ schools: [{ baseUrl: SCHOOL_A, name: 'A' }], ...dataSet });
      await expect(attempt).rejects.toBeInstanceOf(InvalidDataSetError);
      await expect(attempt).rejects.toMatchObject({ path });
      expect(await fresh.ctx.store.dataSet.isEmpty()).toBe(true);
    });

    it('refuses a student of an unknown school and rolls back what was already written', async () => {
      const attempt = fresh.ctx.store.dataSet.writeDataSet({
        schools: [{ baseUrl: SCHOOL_A, name: 'A' }],
        devices: [{ id: 'd', token: 't' }],
        students: [
          { id: '1', school: SCHOOL_A, fullName: 'ok' },
          { id: '2', school: 'https://unknown.example', fullName: 'orphan' },
        ],
      });
      await expect(attempt).rejects.toMatchObject({ name: 'InvalidDataSetError', path: 'students[1].school' });
      expect(await fresh.ctx.store.dataSet.isEmpty()).toBe(true);
      expect(await fresh.ctx.store.records.getDeviceToken('d')).toBeNull();
    });

    it('accepts a student of a school stored earlier', async () => {
      await fresh.ctx.store.dataSet.writeDataSet({ schools: [{ baseUrl: SCHOOL_A, name: 'A' }] });
      await fresh.ctx.store.dataSet.writeDataSet({
        students: [{ id: '1', school: 'https://ALNOOR.school.example/', fullName: 'x' }],
      });
      expect(await fresh.ctx.store.records.findStudent('1')).toMatchObject({ schoolKey: SCHOOL_A });
    });
  });
});
