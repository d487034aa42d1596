import { schoolKey } from '../../src/domain/school-key';
import { storeVariants, type TestStore } from '../support/stores';
import { SCHOOL_A, SCHOOL_B, STORE_FIXTURE } from './store-fixture';

describe.each(storeVariants())('reads on $name', (variant) => {
  let ctx: TestStore;

  beforeAll(async () => {
    ctx = await variant.create();
    await ctx.store.dataSet.writeDataSet(STORE_FIXTURE);
  });
  afterAll(() => ctx.cleanup());

  describe('listStudentsOfSchool', () => {
    it('lists active students by full name (code point order) then id', async () => {
      const students = await ctx.store.records.listStudentsOfSchool(schoolKey(SCHOOL_A), '1');
      expect(students.map((s) => s.studentId)).toEqual(['1002', '1010', '1004', '1006', '1005', '1003']);
      expect(students[0]).toEqual({ studentId: '1002', fullName: 'Ahmad Ali', deviceId: 'dev-1', active: '1' });
      expect(students.find((s) => s.studentId === '1005')?.deviceId).toBeNull();
      expect(students.find((s) => s.studentId === '1004')?.fullName).toBe(`O'Brien & <Sons> "Q"`);
    });

    it('lists inactive students with 0', async () => {
      expect(await ctx.store.records.listStudentsOfSchool(schoolKey(SCHOOL_A), '0')).toEqual([
        { studentId: '1007', fullName: 'Inactive One', deviceId: 'dev-1', active: '0' },
      ]);
    });

    it('matches the school case-insensitively with a trailing slash ignored', async () => {
      const expected = await ctx.store.records.listStudentsOfSchool(schoolKey(SCHOOL_A), '1');
      expect(await ctx.store.records.listStudentsOfSchool(schoolKey('HTTPS://ALNOOR.SCHOOL.EXAMPLE/'), '1')).toEqual(
        expected,
      );
      // The store normalises again, so a raw base URL works too.
      expect(await ctx.store.records.listStudentsOfSchool('https://AlNoor.school.example//', '1')).toEqual(expected);
      // School B was imported as https://Riverside.School.Example/.
      expect((await ctx.store.records.listStudentsOfSchool(schoolKey(SCHOOL_B), '1')).map((s) => s.studentId)).toEqual([
        '2001',
      ]);
    });

    it('answers an empty list for an unknown school or flag', async () => {
      expect(await ctx.store.records.listStudentsOfSchool(schoolKey('https://nowhere.example'), '1')).toEqual([]);
      expect(await ctx.store.records.listStudentsOfSchool(schoolKey(SCHOOL_A), 'x')).toEqual([]);
      expect(await ctx.store.records.listStudentsOfSchool('', '1')).toEqual([]);
    });
  });

  // On SQLite the operations' hot reads are the rows themselves, so that their calls answer in the same turn
  // (docs/design.md#answered-in-the-same-turn); on PostgreSQL, promises of them.
  it(`gives the hot reads ${variant.name === 'sqlite' ? 'at once' : 'as promises'}`, () => {
    const reads = [
      ctx.store.records.listStudentsOfSchool(schoolKey(SCHOOL_A), '1'),
      ctx.store.records.getDeviceToken('dev-1'),
      ctx.store.records.listAuditNotes('MATH', '7A'),
    ];
    expect(reads.map((read) => read instanceof Promise)).toEqual(reads.map(() => variant.name !== 'sqlite'));
    return Promise.all(reads.map((read) => Promise.resolve(read)));
  });

  describe('getDeviceToken', () => {
    it('returns the token as stored', async () => {
      expect(await ctx.store.records.getDeviceToken('dev-1')).toBe('tok-1');
      expect(await ctx.store.records.getDeviceToken('dev-2')).toBe('tok-2&<x>"');
    });

    it('returns null for a device without token or an unknown device', async () => {
      expect(await ctx.store.records.getDeviceToken('dev-3')).toBeNull();
      expect(await ctx.store.records.getDeviceToken('dev-9')).toBeNull();
      expect(await ctx.store.records.getDeviceToken('')).toBeNull();
      expect(await ctx.store.records.getDeviceToken('DEV-1')).toBeNull();
    });
  });

  describe('listAuditNotes', () => {
    it('returns the audit notes of the subject and class, newest first, ties by id', async () => {
      const notes = await ctx.store.records.listAuditNotes('MATH', '7A');
      expect(notes.map((n) => n.id)).toEqual(['n-2', 'n-3', 'n-1', 'n-9']);
      expect(notes[0]).toEqual({
        id: 'n-2',
        studentId: '1003',
        type: 'audit',
        subjectId: 'MATH',
        classId: '7A',
        text: 'ممتاز',
        date: '2025-10-08T09:30:00.000Z',
        badge: '3',
        state: 'read',
      });
      expect(notes[3]?.date).toBe('2025-10-06T07:00:00.000Z');
    });

    it('answers an empty list for unknown subjects or classes', async () => {
      expect(await ctx.store.records.listAuditNotes('MATH', '9Z')).toEqual([]);
      expect(await ctx.store.records.listAuditNotes('math', '7A')).toEqual([]);
      expect((await ctx.store.records.listAuditNotes('SCI', '7A')).map((n) => n.id)).toEqual(['n-4']);
    });
  });

  describe('findStudent', () => {
    it('returns the school key, device and push token', async () => {
      expect(await ctx.store.records.findStudent('1010')).toEqual({
        studentId: '1010',
        fullName: 'Ahmad Ali',
        schoolKey: 'https://alnoor.school.example',
        deviceId: 'dev-2',
        pushToken: 'tok-2&<x>"',
        schoolTimeZone: 'UTC',
        quietHours: null,
        pushOptions: null,
      });
      expect((await ctx.store.records.findStudent('2001'))?.schoolKey).toBe(SCHOOL_B);
    });

    it("returns the school's clock and message options with the student", async () => {
      await ctx.store.dataSet.writeDataSet({
        schools: [
          {
            baseUrl: 'https://alnoor.school.example',
            name: 'Al Noor',
            timeZone: 'Asia/Damascus',
            quietHours: '22:00-06:00',
            pushOptions: { Absence: { android: { channelId: 'absence' } } },
          },
        ],
      });
      expect(await ctx.store.records.findStudent('1010')).toMatchObject({
        schoolTimeZone: 'Asia/Damascus',
        quietHours: '22:00-06:00',
        pushOptions: { absence: { android: { channelId: 'absence' } } },
      });
      // Parsed once per text and shared, frozen, by every read; new options read as new at once.
      const first = (await ctx.store.records.findStudent('1010'))?.pushOptions;
      expect((await ctx.store.records.findStudent('1010'))?.pushOptions).toBe(first);
      expect(Object.isFrozen(first?.absence?.android)).toBe(true);
      await ctx.store.dataSet.writeDataSet({
        schools: [
          {
            baseUrl: 'https://alnoor.school.example',
            name: 'Al Noor',
            pushOptions: { absence: { android: { channelId: 'urgent' } } },
          },
        ],
      });
      expect((await ctx.store.records.findStudent('1010'))?.pushOptions).toEqual({
        absence: { android: { channelId: 'urgent' } },
      });
    });

    it('has a null token when the device has none, is unregistered or missing', async () => {
      expect(await ctx.store.records.findStudent('1004')).toMatchObject({ deviceId: 'dev-3', pushToken: null });
      expect(await ctx.store.records.findStudent('1006')).toMatchObject({ deviceId: 'dev-9', pushToken: null });
      expect(await ctx.store.records.findStudent('1005')).toMatchObject({ deviceId: null, pushToken: null });
    });

    it('returns null for an unknown student', async () => {
      expect(await ctx.store.records.findStudent('9999')).toBeNull();
      expect(await ctx.store.records.findStudent('')).toBeNull();
    });
  });
});
