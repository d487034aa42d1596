// The store methods behind the admin API, the importer, the exporter and
// readiness, on every store variant.
import { checkRecord, InvalidDataSetError } from '../../src/store';
import { asStored } from '../support/fixtures';
import { freshStorePerTest, MIGRATION_NAMES, storeVariants } from '../support/stores';
import { STORE_FIXTURE } from './store-fixture';

describe.each(storeVariants())('the store behind the operator surface on $name', (variant) => {
  const fresh = freshStorePerTest(variant, {
    seed: async (c) => {
      await c.store.dataSet.writeDataSet(STORE_FIXTURE);
    },
  });
  const { clock } = fresh;

  describe('records', () => {
    it('reads one record in the import format; a school by any form of its base URL', async () => {
      expect(await fresh.ctx.store.admin.getRecord('students', '1002')).toEqual(
        asStored('students', {
          id: '1002',
          school: 'https://alnoor.school.example',
          fullName: 'Ahmad Ali',
          deviceId: 'dev-1',
          active: '1',
          classId: '7A',
        }),
      );
      expect(await fresh.ctx.store.admin.getRecord('schools', 'HTTPS://Riverside.School.Example/')).toEqual({
        baseUrl: 'https://Riverside.School.Example/',
        name: 'Riverside Academy',
        timeZone: 'UTC',
        quietHours: null,
        pushOptions: null,
        fcmProject: null,
      });
      expect(await fresh.ctx.store.admin.getRecord('notes', 'n-9')).toMatchObject({
        date: '2025-10-06T07:00:00.000Z',
        badge: null,
        state: 'unread',
      });
      expect(await fresh.ctx.store.admin.getRecord('absences', 'a-3')).toMatchObject({ seen: true, reason: 'Dentist' });
      expect(await fresh.ctx.store.admin.getRecord('devices', 'nope')).toBeNull();
    });

    it('pages in key order with the total, and filters by field', async () => {
      const first = await fresh.ctx.store.admin.listRecords('students', {}, { limit: 3, offset: 0 });
      expect(first.total).toBe(8);
      expect(first.items.map((s) => s.id)).toEqual(['1002', '1003', '1004']);
      const last = await fresh.ctx.store.admin.listRecords('students', {}, { limit: 3, offset: 6 });
      expect(last.items.map((s) => s.id)).toEqual(['1010', '2001']);

      const riverside = await fresh.ctx.store.admin.listRecords(
        'students',
        { school: 'https://RIVERSIDE.school.example/' },
        { limit: 10, offset: 0 },
      );
      expect(riverside).toEqual({ total: 1, items: [expect.objectContaining({ id: '2001' })] });
      const seen = await fresh.ctx.store.admin.listRecords('absences', { seen: true }, { limit: 10, offset: 0 });
      expect(seen.items.map((a) => a.id)).toEqual(['a-3']);
      const read = await fresh.ctx.store.admin.listRecords(
        'notes',
        { studentId: '1002', state: 'read' },
        { limit: 10, offset: 0 },
      );
      expect(read.items.map((n) => n.id)).toEqual(['n-7']);
    });

    it('creates, refuses a duplicate, updates and reports which', async () => {
      const create = (current: unknown) =>
        current === null
          ? { write: { id: 'dev-new', token: 't', platform: 'web' as const } }
          : { refuse: 'exists' as const };
      expect(await fresh.ctx.store.admin.changeRecord('devices', 'dev-new', create)).toEqual({
        status: 'created',
        record: { id: 'dev-new', token: 't', platform: 'web' },
      });
      expect(await fresh.ctx.store.admin.changeRecord('devices', 'dev-new', create)).toEqual({
        status: 'refused',
        reason: 'exists',
      });
      const update = await fresh.ctx.store.admin.changeRecord('devices', 'dev-new', (current) => ({
        write: { ...current!, token: 't2' },
      }));
      expect(update).toEqual({ status: 'updated', record: { id: 'dev-new', token: 't2', platform: 'web' } });
    });

    it('refuses a record whose key is not the one named, and a dangling school, writing nothing', async () => {
      await expect(
        fresh.ctx.store.admin.changeRecord('devices', 'dev-a', () => ({ write: { id: 'dev-b' } })),
      ).rejects.toThrow(InvalidDataSetError);
      await expect(
        fresh.ctx.store.admin.changeRecord('students', '9', () => ({
          write: { id: '9', school: 'https://unknown.example', fullName: 'X' },
        })),
      ).rejects.toThrow(/school that is neither stored nor in the data set/);
      expect(await fresh.ctx.store.admin.getRecord('devices', 'dev-b')).toBeNull();
      expect(await fresh.ctx.store.admin.getRecord('students', '9')).toBeNull();
    });

    it('deletes: a school only once empty; a student with its notes and absences', async () => {
      expect(await fresh.ctx.store.admin.deleteRecord('schools', 'https://alnoor.school.example')).toBe('in_use');
      expect(await fresh.ctx.store.admin.deleteRecord('students', '2001')).toBe('deleted');
      expect(await fresh.ctx.store.admin.deleteRecord('schools', 'https://riverside.school.example')).toBe('deleted');
      expect(await fresh.ctx.store.admin.deleteRecord('students', '1002')).toBe('deleted');
      expect(await fresh.ctx.store.admin.listRecords('notes', { studentId: '1002' }, { limit: 10, offset: 0 })).toEqual(
        { items: [], total: 0 },
      );
      expect(
        await fresh.ctx.store.admin.listRecords('absences', { studentId: '1002' }, { limit: 10, offset: 0 }),
      ).toEqual({ items: [], total: 0 });
      expect(await fresh.ctx.store.admin.deleteRecord('students', '1002')).toBe('not_found');
    });

    it('says which keys are stored', async () => {
      expect(await fresh.ctx.store.dataSet.existingKeys('students', ['1002', 'x', '2001', '1002'])).toEqual(
        new Set(['1002', '2001']),
      );
    });
  });

  describe('import and export', () => {
    it('counts the records that were already stored as updated, the rest as inserted', async () => {
      const counts = await fresh.ctx.store.dataSet.importDataSet({
        devices: [{ id: 'dev-1', token: 'tok-1' }, { id: 'dev-50' }],
        notes: [{ id: 'n-1', studentId: '1002', type: 'audit', text: 'changed', date: '2025-10-06' }],
      });
      expect(counts.written).toEqual({ schools: 0, students: 0, devices: 2, notes: 1, absences: 0 });
      expect(counts.updated).toEqual({ schools: 0, students: 0, devices: 1, notes: 1, absences: 0 });
    });

    it('reads the whole data set back in a form that imports to the same store', async () => {
      const exported = await fresh.ctx.store.dataSet.readDataSet();
      expect(exported.students).toHaveLength(8);
      const copy = await variant.create({ now: clock.now });
      try {
        await copy.store.dataSet.writeDataSet(exported);
        expect(await copy.store.dataSet.readDataSet()).toEqual(exported);
      } finally {
        await copy.cleanup();
      }
    });

    it('checks one record by the data set rules', () => {
      expect(
        checkRecord('students', { id: '1', school: 'HTTPS://A.example/', fullName: 'A' }, clock.now().toISOString()),
      ).toEqual({
        key: '1',
        references: [{ field: 'school', collection: 'schools', key: 'https://a.example' }],
      });
      expect(
        checkRecord('notes', { id: 'n', studentId: ' 7 ', type: 'audit', text: '', date: '2025-10-01' }, ''),
      ).toEqual({
        key: 'n',
        references: [{ field: 'studentId', collection: 'students', key: '7' }],
      });
      expect(checkRecord('students', { id: '1', school: 'x', fullName: 'A', active: 'yes' }, '')).toEqual({
        problem: 'active must be "1" or "0".',
      });
      expect(checkRecord('absences', { id: '1', studentId: 's', type: 't', date: '2025-02-30' }, '')).toEqual({
        problem: 'date is not a calendar date.',
      });
    });
  });

  describe('outbox listing', () => {
    it('pages newest first with the total, and filters', async () => {
      const ids: string[] = [];
      for (const minute of ['01', '02', '03']) {
        clock.set(`2030-01-01T00:${minute}:00.000Z`);
        ids.push(
          await fresh.ctx.store.outbox.enqueuePushNotification({
            deviceId: `d${minute}`,
            studentId: 's',
            type: 't',
            title: 'x',
            body: 'y',
            data: {},
          }),
        );
      }
      const page = await fresh.ctx.store.admin.listOutbox('push', { limit: 2, offset: 0 });
      expect(page.total).toBe(3);
      expect(page.items.map((m) => m.id)).toEqual([ids[2], ids[1]]);
      expect(
        (await fresh.ctx.store.admin.listOutbox('push', { deviceId: 'd01', limit: 5, offset: 0 })).items.map(
          (m) => m.id,
        ),
      ).toEqual([ids[0]]);
      expect((await fresh.ctx.store.admin.listOutbox('push', { status: 'dead', limit: 5, offset: 0 })).total).toBe(0);
      expect((await fresh.ctx.store.admin.listOutbox('sms', { limit: 5, offset: 0 })).total).toBe(0);
    });
  });

  describe('migrations', () => {
    it('reports the schema current, and the migrations missing when they are', async () => {
      expect(await fresh.ctx.store.lifecycle.migrationStatus()).toEqual({
        current: true,
        applied: MIGRATION_NAMES,
        pending: [],
        unknown: [],
      });
      await fresh.ctx.query('delete from kysely_migration');
      expect(await fresh.ctx.store.lifecycle.migrationStatus()).toMatchObject({
        current: false,
        pending: MIGRATION_NAMES,
      });
    });
  });
});
