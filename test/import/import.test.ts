// `npm run import` and `npm run export`: CSV and JSON in the format of
// docs/design.md#import-format, upsert by key, bad rows reported by line and skipped,
// --strict writing nothing, and an export that imports back to the same store.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { exportDataSet, formatImportReport, importFiles, type ImportReport } from '../../src/import';
import { setKnownFcmProjects } from '../../src/domain/fcm-project';
import { asStored, FIXTURES } from '../support/fixtures';
import { storeVariants, type TestStore } from '../support/stores';
import type { DataSet } from '../../src/store';

describe.each(storeVariants())('import and export on $name', (variant) => {
  let ctx: TestStore;
  let dir: string;
  beforeEach(async () => {
    ctx = await variant.create();
    dir = mkdtempSync(path.join(os.tmpdir(), 'sns-import-'));
  });
  afterEach(async () => {
    await ctx.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  const file = (name: string, text: string): string => {
    const full = path.join(dir, name);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, text);
    return full;
  };
  const counts = (report: ImportReport) =>
    Object.fromEntries(
      report.files.flatMap((f) => f.collections.map((c) => [c.collection, [c.inserted, c.updated, c.rejected]])),
    );

  it('loads a school from CSV, then updates it on a second run (upsert by key)', async () => {
    const schools = file('schools.csv', 'baseUrl,name\nhttps://hilltop.school.example,Hilltop\n');
    const students = file(
      'students.csv',
      'id,school,fullName,deviceId,active,classId\n' +
        '5001,https://hilltop.school.example,Nour Salem,dev-5001,1,3A\n' +
        '5002,https://HILLTOP.school.example/,"Haddad, Rami",,0,3B\n',
    );
    const devices = file('devices.csv', 'id,token,platform\ndev-5001,fcm:5001,android\n');
    // Students first on the command line: the importer writes schools and devices before them.
    const first = await importFiles(ctx.store.dataSet, [students, schools, devices]);
    expect(first.complete).toBe(true);
    expect(first.files.map((f) => f.file)).toEqual([students, schools, devices]);
    expect(counts(first)).toEqual({ schools: [1, 0, 0], students: [2, 0, 0], devices: [1, 0, 0] });
    expect(await ctx.store.admin.getRecord('students', '5002')).toEqual(
      asStored('students', {
        id: '5002',
        school: 'https://hilltop.school.example',
        fullName: 'Haddad, Rami',
        deviceId: null,
        active: '0',
        classId: '3B',
      }),
    );
    expect(await ctx.store.records.getDeviceToken('dev-5001')).toBe('fcm:5001');

    file(
      'students.csv',
      'id,school,fullName\n5001,https://hilltop.school.example,Nour Salem Haddad\n5003,https://hilltop.school.example,New One\n',
    );
    const second = await importFiles(ctx.store.dataSet, [students]);
    expect(counts(second)).toEqual({ students: [1, 1, 0] });
    // Columns left out keep what is stored.
    expect(await ctx.store.admin.getRecord('students', '5001')).toMatchObject({
      fullName: 'Nour Salem Haddad',
      deviceId: 'dev-5001',
      classId: '3A',
    });
    expect(formatImportReport(second)).toContain('students: 1 inserted, 1 updated, 0 rejected');
  });

  it('reports bad rows with their line and reason, and writes the rest', async () => {
    await ctx.store.dataSet.writeDataSet({ schools: FIXTURES.schools });
    const students = file(
      'students.csv',
      [
        'id,school,fullName,active,classId,colour',
        '1,https://school-a.example,Good One,1,7A,red',
        '2,https://school-a.example,"A name on',
        'two lines",yes,7A,blue',
        ',https://school-a.example,No Id,1,7A,',
        '4,https://unknown.example,Lost,1,7A,',
        '5,https://school-a.example,Too few',
        '',
        '6,https://school-b.example,Good Two,0,9C,',
      ].join('\n'),
    );
    const report = await importFiles(ctx.store.dataSet, [students]);
    expect(report.complete).toBe(false);
    const [only] = report.files;
    expect(only?.rejected).toEqual([
      {
        collection: 'students',
        line: 3,
        reason: 'active must be "1" or "0".',
        code: 'field-one-or-zero',
        params: { field: 'active', value: 'yes' },
      },
      {
        collection: 'students',
        line: 5,
        reason: 'id is required.',
        code: 'field-required',
        params: { field: 'id', value: '' },
      },
      {
        collection: 'students',
        line: 6,
        reason: 'school names a school that is neither stored nor in this import (https://unknown.example).',
        code: 'row-unknown-reference',
        params: { field: 'school', noun: 'school', key: 'https://unknown.example' },
      },
      {
        collection: 'students',
        line: 7,
        reason: 'has 3 fields; the header has 6.',
        code: 'row-field-count',
        params: { count: 3, expected: 6 },
      },
    ]);
    expect(counts(report)).toEqual({ students: [2, 0, 4] });
    expect(only?.notes).toEqual([`${students}: columns ignored (not fields of students): colour`]);
    expect(
      (await ctx.store.admin.listRecords('students', {}, { limit: 10, offset: 0 })).items.map((s) => s.id),
    ).toEqual(['1', '6']);
    const text = formatImportReport(report);
    expect(text).toContain('line 6 (students): school names a school');
    expect(text).toContain('Total: 2 inserted, 0 updated, 4 rejected.');
  });

  it('with --strict writes nothing, not even the good files, when one row is bad', async () => {
    const schools = file('schools.csv', 'baseUrl,name\nhttps://hilltop.school.example,Hilltop\n');
    const students = file(
      'students.csv',
      'id,school,fullName,active\n1,https://hilltop.school.example,A,1\n2,https://hilltop.school.example,B,2\n',
    );
    const report = await importFiles(ctx.store.dataSet, [schools, students], { strict: true });
    expect(report).toMatchObject({ refused: true, complete: false });
    expect(report.files.map((f) => f.status)).toEqual(['not_written', 'not_written']);
    expect(await ctx.store.dataSet.isEmpty()).toBe(true);
    expect(formatImportReport(report)).toContain('Refused (--strict): 1 rejected rows; nothing was written.');

    const clean = await importFiles(ctx.store.dataSet, [schools], { strict: true });
    expect(clean.complete).toBe(true);
    expect(await ctx.store.dataSet.isEmpty()).toBe(false);
  });

  it('checks without writing in a dry run', async () => {
    const schools = file('schools.csv', 'baseUrl,name\nhttps://hilltop.school.example,Hilltop\n');
    const report = await importFiles(ctx.store.dataSet, [schools], { dryRun: true });
    expect(report.files[0]).toMatchObject({
      status: 'checked',
      collections: [{ collection: 'schools', accepted: 1, inserted: null }],
    });
    expect(await ctx.store.dataSet.isEmpty()).toBe(true);
  });

  it('reads one JSON document with every collection, reporting bad records by line', async () => {
    const document = file(
      'school.json',
      JSON.stringify(
        {
          exportedBy: 'the old system',
          schools: [{ baseUrl: 'https://hilltop.school.example', name: 'Hilltop' }],
          devices: [{ id: 'dev-1', token: 'fcm:1', platform: 'ios' }],
          students: [
            { id: 1, school: 'https://hilltop.school.example', fullName: 'A', deviceId: 'dev-1' },
            { id: 2, school: 'https://hilltop.school.example', fullName: 'B', active: true },
          ],
          notes: [
            {
              id: 'n1',
              studentId: '1',
              type: 'audit',
              subjectId: 'MATH',
              classId: '3A',
              text: 'ok',
              date: '2026-11-01T08:00:00+02:00',
              badge: 2,
            },
          ],
          absences: [{ id: 'a1', studentId: '9', date: '2026-11-02', type: 'late' }, 'not a record'],
        },
        null,
        2,
      ),
    );
    const report = await importFiles(ctx.store.dataSet, [document]);
    expect(counts(report)).toEqual({
      schools: [1, 0, 0],
      devices: [1, 0, 0],
      students: [1, 0, 1],
      notes: [1, 0, 0],
      absences: [0, 0, 2],
    });
    const rejected = report.files[0]?.rejected ?? [];
    expect(rejected.map((r) => [r.collection, r.reason])).toEqual([
      ['students', 'active must be "1" or "0".'],
      ['absences', 'studentId names a student that is neither stored nor in this import (9).'],
      ['absences', 'absences[1] is not an object.'],
    ]);
    // Line numbers point at the record in the pretty-printed document.
    expect(rejected.map((r) => r.line)).toEqual([23, 43, 49]);
    expect(report.files[0]?.notes).toEqual([`${document}: top-level keys ignored: exportedBy`]);
    expect(await ctx.store.admin.getRecord('notes', 'n1')).toMatchObject({
      date: '2026-11-01T06:00:00.000Z',
      badge: '2',
    });
  });

  it('names the file and the place when a whole file cannot be read', async () => {
    const report = await importFiles(ctx.store.dataSet, [
      file('pupils.csv', 'id\n1\n'),
      file('students.csv', 'id,fullName\n1,A\n'),
      file('broken.json', '{\n  "schools": [\n    { "baseUrl": "x", }\n  ]\n}\n'),
      file('quote.csv/schools.csv', 'baseUrl,name\n"https://a.example,A\n'),
      path.join(dir, 'absent', 'notes.csv'),
    ]);
    expect(report.files.map((f) => [f.status, f.error])).toEqual([
      ['failed', expect.stringContaining('cannot tell which collection this CSV file holds')],
      ['failed', expect.stringContaining('the header row lacks school')],
      ['failed', expect.stringMatching(/is not valid JSON: .*\(near line 3\)/)],
      ['failed', expect.stringContaining('is not valid CSV: Quote Not Closed')],
      ['failed', expect.stringContaining('cannot be read: ENOENT')],
    ]);
    expect(report.complete).toBe(false);
  });

  // `npm run export` once wrote =HYPERLINK(...) and @SUM(...) as they came in, for a spreadsheet to run.
  it('exports cells a spreadsheet would run with a quote in front, and imports them back unchanged', async () => {
    const hostile: DataSet = {
      ...FIXTURES,
      schools: [{ baseUrl: 'https://school-a.example', name: '=HYPERLINK("http://evil.example","click")' }],
      devices: [{ id: '+966501234567', token: "-2+3+cmd|' /C calc'!A0", platform: 'android' }],
      students: [
        {
          id: '1001',
          school: 'https://school-a.example',
          fullName: '@SUM(1+1)',
          deviceId: '+966501234567',
          active: '1',
          classId: '-5',
        },
        {
          id: '1002',
          school: 'https://school-a.example',
          fullName: "'=already quoted",
          deviceId: null,
          active: '1',
          classId: '+1',
        },
        {
          id: '1003',
          school: 'https://school-a.example',
          fullName: "'hello",
          deviceId: null,
          active: '0',
          classId: "''",
        },
      ],
      notes: [
        { ...FIXTURES.notes![0], text: '\t=1+1', badge: '+1' },
        { ...FIXTURES.notes![2], text: '\r@SUM(A1)\nsecond line', subjectId: "''-x" },
      ],
      absences: [{ ...FIXTURES.absences![0], reason: "'+963 912 345 678" }],
    };
    await ctx.store.dataSet.writeDataSet(hostile);
    const { files } = await exportDataSet(ctx.store.dataSet, path.join(dir, 'export'), 'csv');
    const rows: string[][] = files.flatMap((f) => parse(readFileSync(f, 'utf8')));
    const cells = rows.flat();
    expect(cells.filter((c) => /^[=+\-@\t\r]/.test(c))).toEqual([]);
    expect(cells).toEqual(
      expect.arrayContaining([
        `'=HYPERLINK("http://evil.example","click")`,
        "'@SUM(1+1)",
        "'+966501234567",
        "'-5",
        "''=already quoted",
        "'hello",
        "''",
        "'\t=1+1",
        "'''-x",
        "''+963 912 345 678",
      ]),
    );

    const copy = await variant.create();
    try {
      const report = await importFiles(copy.store.dataSet, files, { strict: true });
      expect(report.complete).toBe(true);
      expect(await copy.store.dataSet.readDataSet()).toEqual(await ctx.store.dataSet.readDataSet());
      expect((await copy.store.dataSet.readDataSet()).students.map((s) => s.fullName).sort()).toEqual(
        ["'=already quoted", "'hello", '@SUM(1+1)'].sort(),
      );
    } finally {
      await copy.cleanup();
    }
  });

  it('takes a quote away on import only before what a spreadsheet would run', async () => {
    const schools = file(
      'schools.csv',
      "baseUrl,name\nhttps://a.example,'=1+1\nhttps://b.example,'O'Hara\nhttps://c.example,+963 resumed\nhttps://d.example,''@x\n",
    );
    await importFiles(ctx.store.dataSet, [schools], { strict: true });
    expect((await ctx.store.dataSet.readDataSet()).schools.map((s) => s.name)).toEqual([
      '=1+1',
      "'O'Hara",
      '+963 resumed',
      "'@x",
    ]);
  });

  it.each(['csv', 'json'] as const)('exports to %s and imports back to the same store', async (format) => {
    // A school on its own FCM project travels by the project's name.
    setKnownFcmProjects(['brand-a']);
    await ctx.store.dataSet.writeDataSet(FIXTURES);
    // A school with its clock and message options: a CSV cell holds the options' JSON.
    await ctx.store.dataSet.writeDataSet({
      schools: [
        {
          baseUrl: 'https://clock.school.example',
          name: 'Clock',
          timeZone: 'Europe/London',
          quietHours: '21:00-06:30',
          pushOptions: {
            absence: { ttlSeconds: 3600, android: { channelId: 'absence' } },
            '*': { apns: { sound: null } },
          },
          fcmProject: 'brand-a',
        },
      ],
    });
    await ctx.store.records.markNotesRead('1001', 'behaviour');
    await ctx.store.records.listAbsencesMarkSeen('1001');
    const out = path.join(dir, 'export');
    const { files, counts: exported } = await exportDataSet(ctx.store.dataSet, out, format);
    expect(exported).toEqual({ schools: 3, devices: 5, students: 6, notes: 3, absences: 2 });
    expect(readdirSync(out).sort()).toEqual(
      format === 'csv' ? ['absences.csv', 'devices.csv', 'notes.csv', 'schools.csv', 'students.csv'] : ['data.json'],
    );

    const copy = await variant.create();
    try {
      const report = await importFiles(copy.store.dataSet, files, { strict: true });
      expect(report.complete).toBe(true);
      expect(await copy.store.dataSet.readDataSet()).toEqual(await ctx.store.dataSet.readDataSet());
      expect(await copy.store.admin.getRecord('schools', 'https://clock.school.example')).toMatchObject({
        timeZone: 'Europe/London',
        quietHours: '21:00-06:30',
        pushOptions: { '*': { apns: { sound: null } } },
        fcmProject: 'brand-a',
      });
      if (format === 'csv') expect(readFileSync(path.join(out, 'schools.csv'), 'utf8')).toContain(',brand-a');
    } finally {
      setKnownFcmProjects([]);
      await copy.cleanup();
    }
  });
});
