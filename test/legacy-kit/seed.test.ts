// Seeding the store from the legacy service (docs/migration.md#seed-from-the-legacy-service),
// against a fake legacy that answers like ASMX and records every call.
import { formatImportReport } from '../../src/import';
import { READ_OPERATIONS, seedFromLegacy } from '../../src/legacy-kit/seed';
import { freshStorePerTest, storeVariants } from '../support/stores';
import { fakeData, soapEnvelope, studentList, type FakeAsmxData } from '../support/fake-asmx';
import { expectedDataSet, fakesPerTest, seedOptions, sorted } from './seed-support';

const NS = 'http://tempuri.org/';
const READS = Object.keys(READ_OPERATIONS).map((op) => `${NS}${op}`);

it('allows the two read operations and nothing else', () => {
  expect(READ_OPERATIONS).toEqual({ GetStudentSchool: 'NotificationNotes', GetTokenDevice: 'PushNotificationMobile' });
});

const fake = fakesPerTest();

describe.each(storeVariants())('seeding from the legacy service ($name)', (variant) => {
  const fresh = freshStorePerTest(variant);

  it('seeds students, devices, tokens and active flags equal to the legacy, calling only the two reads', async () => {
    const data = fakeData(5, 23);
    const legacy = await fake(data);
    const result = await seedFromLegacy(fresh.ctx.store.dataSet, seedOptions(legacy.url, data));

    expect(sorted(await fresh.ctx.store.dataSet.readDataSet())).toEqual(expectedDataSet(data));
    expect(result).toMatchObject({ skipped: 0, fetched: 5, failed: 0, students: 115 });
    expect(result.report.complete).toBe(true);
    const text = formatImportReport(result.report);
    expect(text).toContain('https://school-0.legacy.example:\n  schools: 1 inserted, 0 updated, 0 rejected');
    expect(text).toContain('Total: ');
    // Every operation the legacy was asked for is one of the two reads, and both were.
    expect(new Set(legacy.calls.map((call) => call.action))).toEqual(new Set(READS));
    expect(
      legacy.calls.every(
        (call) => call.path === '/NotificationNotes.asmx' || call.path === '/PushNotificationMobile.asmx',
      ),
    ).toBe(true);
    expect(legacy.wsdlRequests.sort()).toEqual(['/NotificationNotes.asmx', '/PushNotificationMobile.asmx']);
    // show_active went as a .NET char (49, 48) for every school.
    const asked = legacy.calls.filter((c) => c.action === `${NS}GetStudentSchool`).map((c) => c.params.show_active);
    expect(asked.sort()).toEqual([...Array(5).fill('48'), ...Array(5).fill('49')]);

    // A second run with --refresh updates in place: the same store, every record an update.
    const again = await seedFromLegacy(fresh.ctx.store.dataSet, { ...seedOptions(legacy.url, data), refresh: true });
    expect(sorted(await fresh.ctx.store.dataSet.readDataSet())).toEqual(expectedDataSet(data));
    expect(formatImportReport(again.report)).toMatch(/students: 0 inserted, 23 updated, 0 rejected/);
  });

  it('reports the rows the store refuses, with their record number and reason, and writes the rest', async () => {
    const data: FakeAsmxData = {
      schools: new Map([
        [
          'https://hilltop.legacy.example',
          [
            { id: '1', fullName: 'Good One', deviceId: 'dev-1', active: '1' },
            { id: null, fullName: 'No Id', deviceId: null, active: '1' },
            { id: '3', fullName: 'Bad Flag', deviceId: null, active: '1' },
            { id: 'x'.repeat(200), fullName: 'Long Id', deviceId: null, active: '1' },
            { id: '5', fullName: 'Long Device', deviceId: `d${'9'.repeat(140)}`, active: '1' },
            { id: '6', fullName: 'Inactive', deviceId: 'dev-1', active: '0' },
          ],
        ],
      ]),
      tokens: new Map([['dev-1', 'tok-1']]),
    };
    // The legacy sends a flag the store does not know for student 3.
    const listed = [...(data.schools.get('https://hilltop.legacy.example') ?? [])];
    const legacy = await fake(data, {
      override: (call) =>
        call.action === `${NS}GetStudentSchool` && call.params.show_active === '49'
          ? {
              status: 200,
              body: soapEnvelope(
                studentList(
                  listed.filter((s) => s.active === '1').map((s) => (s.id === '3' ? { ...s, active: 'yes' } : s)),
                ),
              ),
            }
          : undefined,
    });
    const options = seedOptions(legacy.url, data);
    const result = await seedFromLegacy(fresh.ctx.store.dataSet, options);
    const text = formatImportReport(result.report);
    expect(result.report.complete).toBe(false);
    expect(text).toContain('record 2 (students): id is required.');
    expect(text).toContain('record 4 (students): id must be at most 128 characters.');
    expect(text).toContain('record 5 (devices): id must be at most 128 characters.');
    expect(text).toContain('record 5 (students): deviceId must be at most 128 characters.');
    expect(text).toContain('record 3 (students): active must be "1" or "0".');
    expect(text).toContain('students: 2 inserted, 0 updated, 4 rejected');
    const stored = await fresh.ctx.store.dataSet.readDataSet();
    expect(stored.students.map((s) => [s.id, s.active]).sort()).toEqual([
      ['1', '1'],
      ['6', '0'],
    ]);
    // The device id too long to store was never asked for.
    expect(legacy.calls.filter((c) => c.action === `${NS}GetTokenDevice`).map((c) => c.params.id)).toEqual(['dev-1']);
  });
});
