import { DEMO_DATA, loadDemoData } from '../../src/store';
import { schoolKey } from '../../src/domain/school-key';
import { storeVariants, type TestStore } from '../support/stores';

describe('DEMO_DATA', () => {
  const students = DEMO_DATA.students ?? [];
  const devices = DEMO_DATA.devices ?? [];

  it('covers the cases clients meet', () => {
    expect(DEMO_DATA.schools).toEqual([
      { baseUrl: 'https://alnoor.school.example', name: 'مدرسة النور' },
      { baseUrl: 'https://riverside.school.example', name: 'Riverside Academy' },
    ]);
    expect(students.map((s) => s.fullName)).toEqual(
      expect.arrayContaining(['أحمد علي', 'فاطمة حسن', `O'Brien & <Sons> "Q"`]),
    );
    expect(new Set(students.map((s) => s.active))).toEqual(new Set(['1', '0']));
    expect(devices.filter((d) => d.token === null)).toHaveLength(1);
    const sharedDevices = students.map((s) => s.deviceId).filter((id, i, all) => id != null && all.indexOf(id) !== i);
    expect(sharedDevices.length).toBeGreaterThan(0);
    expect(new Set((DEMO_DATA.notes ?? []).map((n) => n.type))).toEqual(new Set(['audit', 'behaviour', 'general']));
    expect(new Set((DEMO_DATA.notes ?? []).map((n) => n.state))).toEqual(new Set(['unread', 'read']));
  });
});

describe.each(storeVariants())('loadDemoData on $name', (variant) => {
  let ctx: TestStore;

  beforeAll(async () => {
    ctx = await variant.create();
  });
  afterAll(() => ctx.cleanup());

  it('loads into an empty store, and loading again changes nothing', async () => {
    expect(await ctx.store.dataSet.isEmpty()).toBe(true);
    const counts = await loadDemoData(ctx.store.dataSet);
    expect(counts).toEqual({ schools: 2, students: 8, devices: 6, notes: 9, absences: 5 });
    expect(await loadDemoData(ctx.store.dataSet)).toEqual(counts);
    expect(await ctx.store.dataSet.isEmpty()).toBe(false);
  });

  it('answers the operations with demo records', async () => {
    const active = await ctx.store.records.listStudentsOfSchool(schoolKey('HTTPS://ALNOOR.SCHOOL.EXAMPLE/'), '1');
    expect(active.map((s) => s.fullName)).toEqual(['Omar Saeed', 'أحمد علي', 'فاطمة حسن', 'يوسف حسن']);
    expect(await ctx.store.records.getDeviceToken('dev-1001')).toBe('demo-fcm-token-1001');
    expect(await ctx.store.records.getDeviceToken('dev-1005')).toBeNull();
    expect((await ctx.store.records.listAuditNotes('MATH', '7A')).map((n) => n.id)).toEqual([
      'note-2',
      'note-3',
      'note-1',
    ]);
    expect(await ctx.store.records.findStudent('2001')).toMatchObject({
      fullName: `O'Brien & <Sons> "Q"`,
      pushToken: 'demo-apns-token-2001',
    });
  });
});
