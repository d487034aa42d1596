// The seeding against a legacy that is slow, failing, behind Basic, broken or
// hostile (docs/migration.md#seed-from-the-legacy-service): bounded load on
// it, bounded memory here, clear failures, and a resume that fetches only
// what is missing.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { formatImportReport } from '../../src/import';
import { LegacyServiceError, seedFromLegacy } from '../../src/legacy-kit/seed';
import { readStudentList, readToken } from '../../src/legacy-kit/seed/read-answer';
import { parseSchools } from '../../src/legacy-kit/seed/schools-file';
import { freshStorePerTest, storeVariants } from '../support/stores';
import { fakeData, soapEnvelope, type FakeAsmx } from '../support/fake-asmx';
import { expectedDataSet, fakesPerTest, seedOptions, sorted } from './seed-support';

const NS = 'http://tempuri.org/';
const [sqlite] = storeVariants();

const fake = fakesPerTest();
const schoolCalls = (legacy: FakeAsmx) =>
  legacy.calls.filter((c) => c.action === `${NS}GetStudentSchool`).map((c) => c.params.school_base_url);

describe('seeding against a difficult legacy', () => {
  if (sqlite === undefined) throw new Error('SQLite is always a store variant');
  const fresh = freshStorePerTest(sqlite);

  it('keeps at most --concurrency calls in flight, as the legacy sees them', async () => {
    const data = fakeData(6, 12);
    const legacy = await fake(data, { latencyMs: 15 });
    await seedFromLegacy(fresh.ctx.store.dataSet, seedOptions(legacy.url, data, { concurrency: 3 }));
    expect(legacy.maxInFlight()).toBeLessThanOrEqual(3);
    // Not one at a time either: the bound is what limits it.
    expect(legacy.maxInFlight()).toBeGreaterThan(1);
    expect(sorted(await fresh.ctx.store.dataSet.readDataSet())).toEqual(expectedDataSet(data));
  });

  it('starts no more than --rate calls a second, as the legacy sees them', async () => {
    const data = fakeData(2, 6);
    const legacy = await fake(data);
    const rate = 25;
    await seedFromLegacy(fresh.ctx.store.dataSet, seedOptions(legacy.url, data, { concurrency: 8, rate }));
    const arrivals = legacy.arrivals;
    expect(arrivals.length).toBeGreaterThan(10);
    // A lower bound only: a slow machine spaces the calls more, never less. The calls are paced as they
    // leave; the fake shares this process's event loop, and the first calls open connections, so when
    // they arrive may shift by a few milliseconds: two intervals of slack. Unpaced, these calls arrive
    // within a few milliseconds of each other.
    const span = (arrivals[arrivals.length - 1] ?? 0) - (arrivals[0] ?? 0);
    expect(span).toBeGreaterThanOrEqual(((arrivals.length - 3) * 1000) / rate);
  });

  it('retries calls the legacy answers with 500, and seeds the same data', async () => {
    const data = fakeData(4, 10);
    const legacy = await fake(data, { failEvery: 4 });
    const result = await seedFromLegacy(fresh.ctx.store.dataSet, seedOptions(legacy.url, data));
    expect(result.failed).toBe(0);
    expect(sorted(await fresh.ctx.store.dataSet.readDataSet())).toEqual(expectedDataSet(data));
  });

  it('reports a school that keeps failing, writes the others, and the next run fetches only that one', async () => {
    const data = fakeData(4, 5);
    // The fake reads its options at each call: the school heals between the runs.
    const behaviour: { failSchools: string[] } = { failSchools: ['https://school-2.legacy.example'] };
    const legacy = await fake(data, behaviour);
    const options = seedOptions(legacy.url, data, { retries: 2 });
    const first = await seedFromLegacy(fresh.ctx.store.dataSet, options);
    expect(first).toMatchObject({ fetched: 4, failed: 1 });
    expect(first.report.complete).toBe(false);
    expect(formatImportReport(first.report)).toContain(
      'https://school-2.legacy.example: not imported. GetStudentSchool(https://school-2.legacy.example, 1): HTTP 500',
    );
    // 1 call and 2 retries for each of its two lists.
    expect(schoolCalls(legacy).filter((url) => url === 'https://school-2.legacy.example')).toHaveLength(6);

    behaviour.failSchools = [];
    const before = legacy.calls.length;
    const second = await seedFromLegacy(fresh.ctx.store.dataSet, options);
    expect(second).toMatchObject({ fetched: 1, skipped: 3, failed: 0 });
    expect(schoolCalls({ ...legacy, calls: legacy.calls.slice(before) })).toEqual([
      'https://school-2.legacy.example',
      'https://school-2.legacy.example',
    ]);
    expect(second.report.files.map((f) => f.file)).toEqual([...data.schools.keys()]);
    expect(second.report.complete).toBe(true);
    expect(sorted(await fresh.ctx.store.dataSet.readDataSet())).toEqual(expectedDataSet(data));
  });

  it('writes neither the store nor the checkpoint in a dry run, and reports what it would', async () => {
    const data = fakeData(2, 4);
    const legacy = await fake(data);
    const options = seedOptions(legacy.url, data, { dryRun: true });
    const result = await seedFromLegacy(fresh.ctx.store.dataSet, options);
    expect(formatImportReport(result.report)).toContain(
      'https://school-1.legacy.example (checked only, --dry-run):\n  schools: 1 accepted, 0 rejected',
    );
    expect(await fresh.ctx.store.dataSet.readDataSet()).toMatchObject({ schools: [], students: [], devices: [] });
    expect(existsSync(options.statePath)).toBe(false);
  });

  it('drops a checkpoint line torn by a crash, fetching that school again, and refuses one torn elsewhere', async () => {
    const data = fakeData(3, 2);
    const legacy = await fake(data);
    const options = seedOptions(legacy.url, data, { concurrency: 1 });
    await seedFromLegacy(fresh.ctx.store.dataSet, options);
    const whole = readFileSync(options.statePath, 'utf8');
    const lines = whole.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    // The last school's line cut half-way, as a crash during its append leaves it.
    writeFileSync(options.statePath, whole.slice(0, whole.length - Math.floor((lines[3] ?? '').length / 2)));
    const before = legacy.calls.length;
    const again = await seedFromLegacy(fresh.ctx.store.dataSet, options);
    expect(again).toMatchObject({ fetched: 1, skipped: 2, failed: 0 });
    expect(schoolCalls({ ...legacy, calls: legacy.calls.slice(before) })).toEqual([
      'https://school-2.legacy.example',
      'https://school-2.legacy.example',
    ]);
    expect(readFileSync(options.statePath, 'utf8').trimEnd().split('\n')).toHaveLength(4);

    writeFileSync(options.statePath, [lines[0], '{"key":', lines[2], ''].join('\n'));
    await expect(seedFromLegacy(fresh.ctx.store.dataSet, options)).rejects.toThrow(
      /is not a seeding checkpoint \(line 2 is no school\)/,
    );
  });

  it('refuses a checkpoint of another legacy unless --refresh', async () => {
    const data = fakeData(1, 2);
    const legacy = await fake(data);
    const options = seedOptions(legacy.url, data);
    await seedFromLegacy(fresh.ctx.store.dataSet, options);
    const other = await fake(data);
    await expect(seedFromLegacy(fresh.ctx.store.dataSet, { ...options, baseUrl: other.url + '/' })).rejects.toThrow(
      /is the checkpoint of a seeding from http:\/\/127\.0\.0\.1:\d+, not/,
    );
    const refreshed = await seedFromLegacy(fresh.ctx.store.dataSet, { ...options, baseUrl: other.url, refresh: true });
    expect(refreshed).toMatchObject({ fetched: 1, skipped: 0 });
  });

  it('sends Basic credentials, and fails clearly without them, never showing the password', async () => {
    const data = fakeData(2, 3);
    const basic = { user: 'seeder', password: 'pa55-w0rd-secret' };
    const legacy = await fake(data, { basic });
    const failure = seedFromLegacy(fresh.ctx.store.dataSet, seedOptions(legacy.url, data));
    await expect(failure).rejects.toThrow(LegacyServiceError);
    await expect(failure).rejects.toThrow(/HTTP 401: the legacy service refused the credentials/);
    // 401 is not retried.
    expect(legacy.refusedAuth()).toBe(1);

    const wrong = seedFromLegacy(
      fresh.ctx.store.dataSet,
      seedOptions(legacy.url, data, { credentials: { ...basic, password: 'nope-secret' } }),
    );
    await expect(wrong).rejects.toThrow(/401/);
    await expect(wrong).rejects.not.toThrow(/secret/);

    const options = seedOptions(legacy.url, data, { credentials: basic });
    const result = await seedFromLegacy(fresh.ctx.store.dataSet, options);
    expect(result.failed).toBe(0);
    expect(sorted(await fresh.ctx.store.dataSet.readDataSet())).toEqual(expectedDataSet(data));
    expect(formatImportReport(result.report)).not.toContain(basic.password);
    expect(readFileSync(options.statePath, 'utf8')).not.toContain(basic.password);
  });

  it('fails clearly when the legacy WSDL lacks an operation, before any call', async () => {
    const data = fakeData(1, 1);
    const wsdl = readFileSync('wsdl/NotificationNotes.wsdl', 'utf8').replaceAll(
      'GetStudentSchool',
      'GetStudentSchoolV2',
    );
    const legacy = await fake(data, { wsdl: { NotificationNotes: wsdl } });
    await expect(seedFromLegacy(fresh.ctx.store.dataSet, seedOptions(legacy.url, data))).rejects.toThrow(
      /NotificationNotes\.asmx\?wsdl has no operation GetStudentSchool: is this the legacy service\?/,
    );
    expect(legacy.calls).toEqual([]);
  });

  it('uses the namespace and SOAP action of the legacy WSDL', async () => {
    const data = fakeData(1, 2);
    const other = 'http://legacy.example/notes/';
    const swap = (endpoint: string) =>
      readFileSync(`wsdl/${endpoint}.wsdl`, 'utf8').replaceAll('http://tempuri.org/', other);
    const legacy = await fake(data, {
      wsdl: { NotificationNotes: swap('NotificationNotes'), PushNotificationMobile: swap('PushNotificationMobile') },
      // The fake answers in tempuri.org only: the answers of the other namespace are its own.
      override: (call) => {
        if (call.action === `${other}GetStudentSchool`)
          return {
            status: 200,
            body: soapEnvelope(
              `<GetStudentSchoolResponse xmlns="${other}"><GetStudentSchoolResult /></GetStudentSchoolResponse>`,
            ),
          };
        return { status: 500, body: '' };
      },
    });
    const result = await seedFromLegacy(fresh.ctx.store.dataSet, seedOptions(legacy.url, data));
    expect(result.failed).toBe(0);
    expect(new Set(legacy.calls.map((c) => c.action))).toEqual(new Set([`${other}GetStudentSchool`]));
  });

  it.each([
    ['a DTD', '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">]><x>&a;</x>', /has a DTD, which is refused/],
    [
      'a fault on 200',
      soapEnvelope(
        '<soap:Fault><faultcode>soap:Server</faultcode><faultstring>Ahmad 0944123456</faultstring></soap:Fault>',
      ),
      /SOAP fault \(soap:Server\)/,
    ],
    ['no envelope', '<html>error</html>', /not a SOAP 1.1 envelope/],
    [
      'broken XML',
      soapEnvelope('<GetStudentSchoolResponse xmlns="http://tempuri.org/"><GetStudentSchoolResult>'),
      /not well-formed/,
    ],
    [
      'deep nesting',
      soapEnvelope(
        `<GetStudentSchoolResponse xmlns="http://tempuri.org/">${'<a>'.repeat(50)}${'</a>'.repeat(50)}</GetStudentSchoolResponse>`,
      ),
      /deeper than 12/,
    ],
    [
      'too many students',
      soapEnvelope(
        `<GetStudentSchoolResponse xmlns="http://tempuri.org/"><GetStudentSchoolResult>${'<StudentInfo><id_student>1</id_student></StudentInfo>'.repeat(11)}</GetStudentSchoolResult></GetStudentSchoolResponse>`,
      ),
      /more than 10 students/,
    ],
    ['an answer over the size limit', soapEnvelope(' '.repeat(30_000)), /larger than 20000 bytes/],
  ])('refuses %s in an answer, naming no personal data', async (_what, body, message) => {
    const data = fakeData(1, 2);
    const legacy = await fake(data, {
      override: (call) => (call.action === `${NS}GetStudentSchool` ? { status: 200, body } : undefined),
    });
    const result = await seedFromLegacy(
      fresh.ctx.store.dataSet,
      seedOptions(legacy.url, data, { maxStudents: 10, maxListBytes: 20_000 }),
    );
    expect(result.failed).toBe(1);
    const text = formatImportReport(result.report);
    expect(text).toMatch(message);
    expect(text).not.toMatch(/Ahmad|0944123456/);
    // A broken answer is not asked again and again.
    expect(legacy.calls.length).toBe(2);
  });

  it('reads the answer shapes test/wire pins: nil and left-out fields, an empty list, the null string', () => {
    const list = soapEnvelope(
      `<GetStudentSchoolResponse xmlns="${NS}"><GetStudentSchoolResult><StudentInfo><id_student>1</id_student><fullName>O'Brien &amp; &lt;Sons&gt; "Q"</fullName><ShowActive>1</ShowActive></StudentInfo><StudentInfo><id_student>2</id_student><fullName><![CDATA[أحمد]]> علي</fullName><id_device xsi:nil="true" /><ShowActive>0</ShowActive></StudentInfo></GetStudentSchoolResult></GetStudentSchoolResponse>`,
    );
    expect(readStudentList(list, { namespace: NS, operation: 'GetStudentSchool', maxStudents: 5 })).toEqual([
      { studentId: '1', fullName: `O'Brien & <Sons> "Q"`, deviceId: null, showActive: '1' },
      { studentId: '2', fullName: 'أحمد علي', deviceId: null, showActive: '0' },
    ]);
    const empty = soapEnvelope(
      `<GetStudentSchoolResponse xmlns="${NS}"><GetStudentSchoolResult /></GetStudentSchoolResponse>`,
    );
    expect(readStudentList(empty, { namespace: NS, operation: 'GetStudentSchool', maxStudents: 5 })).toEqual([]);
    // Another namespace's elements are not this operation's answer.
    const foreign = soapEnvelope(
      '<GetStudentSchoolResponse xmlns="urn:other"><GetStudentSchoolResult /></GetStudentSchoolResponse>',
    );
    expect(() => readStudentList(foreign, { namespace: NS, operation: 'GetStudentSchool', maxStudents: 5 })).toThrow(
      /no GetStudentSchoolResponse/,
    );
    const token = (inner: string) => readToken(soapEnvelope(inner), { namespace: NS, operation: 'GetTokenDevice' });
    expect(token(`<GetTokenDeviceResponse xmlns="${NS}" />`)).toBeNull();
    expect(
      token(
        `<GetTokenDeviceResponse xmlns="${NS}"><GetTokenDeviceResult>fcm:AAAA&amp;&lt;1&gt;</GetTokenDeviceResult></GetTokenDeviceResponse>`,
      ),
    ).toBe('fcm:AAAA&<1>');
  });

  it('reads the schools file: base URLs, an optional name, comments; refuses what is no URL', () => {
    expect(
      parseSchools(
        'f',
        '# legacy schools\n\nhttps://A.example/  Al Noor School\nhttps://a.example\nhttp://b.example/x\n',
      ),
    ).toEqual([
      { baseUrl: 'https://A.example/', key: 'https://a.example', name: 'Al Noor School', line: 3 },
      { baseUrl: 'http://b.example/x', key: 'http://b.example/x', name: null, line: 5 },
    ]);
    expect(() => parseSchools('f', 'https://a.example\nftp://b.example\n')).toThrow('f line 2: not a school base URL');
    expect(() => parseSchools('f', '# nothing\n')).toThrow('f names no school.');
  });
});
