// What a file may hold (docs/console.md#import-limits): a row limit that
// refuses the file as a whole, refused rows kept only up to a listed number
// and counted past it, and bounds on a record's fields and a cell's length, in
// CSV and JSON alike.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatImportReport, importFiles, LISTED_REJECTIONS_MAX, readSource } from '../../src/import';
import { MAX_CELL_CHARS, MAX_FIELDS, MAX_JSON_DEPTH, MAX_NESTED_VALUES } from '../../src/import/read-limits';
import { storeVariants, type TestStore } from '../support/stores';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sns-import-limits-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string): string => {
  const full = path.join(dir, name);
  writeFileSync(full, text);
  return full;
};

describe('reading a file within limits', () => {
  it('refuses a CSV file with more rows than the limit, and reads one at the limit', async () => {
    const rows = (n: number) => ['baseUrl,name', ...Array.from({ length: n }, (_, i) => `https://s${i}.example,S`)];
    const over = file('schools.csv', rows(11).join('\n'));
    await expect(readSource(over, undefined, { maxRows: 10 })).rejects.toThrow(
      /holds more than 10 rows, the most one import takes/,
    );
    const at = await readSource(file('schools.csv', rows(10).join('\r\n')), undefined, { maxRows: 10 });
    expect(at.rows.schools).toHaveLength(10);
    expect(at.rows.schools?.[9]).toEqual({ line: 11, record: { baseUrl: 'https://s9.example', name: 'S' } });
  });

  it('refuses a JSON document with more records than the limit, counting every collection', async () => {
    const doc = JSON.stringify({ schools: [{}, {}, {}], students: [{}, 1, {}] });
    await expect(readSource(file('many.json', doc), undefined, { maxRows: 5 })).rejects.toThrow(/more than 5 rows/);
    const read = await readSource(file('many.json', doc), undefined, { maxRows: 6 });
    expect(read.rows.students).toHaveLength(2);
    expect(read.unreadable).toEqual([
      {
        collection: 'students',
        line: 1,
        reason: 'students[1] is not an object.',
        code: 'row-not-object',
        params: { collection: 'students', index: 1 },
      },
    ]);
  });

  it('keeps the first refused CSV rows by line and counts the rest', async () => {
    // The attacker's shape: one cell a row under a two-field header.
    const text = `baseUrl,name\n${'x\n'.repeat(LISTED_REJECTIONS_MAX * 3)}`;
    const read = await readSource(file('schools.csv', text));
    expect(read.unreadable).toHaveLength(LISTED_REJECTIONS_MAX);
    expect(read.unreadable[0]).toEqual({
      collection: 'schools',
      line: 2,
      reason: 'has 1 fields; the header has 2.',
      code: 'row-field-count',
      params: { count: 1, expected: 2 },
    });
    expect(read.unreadable.at(-1)?.line).toBe(LISTED_REJECTIONS_MAX + 1);
    expect(read.unlisted).toEqual({ schools: LISTED_REJECTIONS_MAX * 2 });
  });

  it('refuses a row with too many fields or too long a cell without keeping it, and reads on', async () => {
    const wide = ','.repeat(MAX_FIELDS * 40);
    const long = 'y'.repeat(MAX_CELL_CHARS + 1);
    const text = `baseUrl,name\n${wide}\n"${long}",L\nhttps://a.example,"A, ""quoted"""\n`;
    const read = await readSource(file('schools.csv', text));
    expect(read.unreadable).toEqual([
      {
        collection: 'schools',
        line: 2,
        reason: `has more than ${MAX_FIELDS} fields.`,
        code: 'row-too-many-fields',
        params: { max: MAX_FIELDS },
      },
      {
        collection: 'schools',
        line: 3,
        reason: `has a field longer than ${MAX_CELL_CHARS.toLocaleString('en-US')} characters.`,
        code: 'row-cell-too-long',
        params: { max: MAX_CELL_CHARS },
      },
    ]);
    expect(read.rows.schools).toEqual([{ line: 4, record: { baseUrl: 'https://a.example', name: 'A, "quoted"' } }]);
  });

  it('reads a quoted cell across lines and gives the line the record starts on', async () => {
    const read = await readSource(file('schools.csv', 'baseUrl,name\n\nhttps://a.example,"A\nB"\nhttps://b.example,B'));
    expect(read.rows.schools).toEqual([
      { line: 3, record: { baseUrl: 'https://a.example', name: 'A\nB' } },
      { line: 5, record: { baseUrl: 'https://b.example', name: 'B' } },
    ]);
  });

  it('refuses a JSON document nested deeper than the bound, and keeps nested values of a record up to theirs', async () => {
    const deep = `{"schools":${'['.repeat(MAX_JSON_DEPTH * 1000)}`;
    await expect(readSource(file('deep.json', deep))).rejects.toThrow(
      new RegExp(`is not valid JSON: it nests deeper than ${MAX_JSON_DEPTH} levels`),
    );
    // A school's message options are an object in its record.
    const options = { absence: { android: { channelId: 'absence' }, apns: { sound: null } } };
    const nested = JSON.stringify({ schools: [{ baseUrl: 'https://a.example', name: 'A', pushOptions: options }] });
    const read = await readSource(file('nested.json', nested));
    expect(read.rows.schools).toEqual([
      { line: 1, record: { baseUrl: 'https://a.example', name: 'A', pushOptions: options } },
    ]);
    // Past the bound the record is refused, and what is inside it no longer kept.
    const many = JSON.stringify({
      schools: [
        {
          baseUrl: 'https://b.example',
          name: 'B',
          pushOptions: { x: Array.from({ length: MAX_NESTED_VALUES + 1 }, () => 1) },
        },
      ],
    });
    const refused = await readSource(file('many.json', many));
    expect(refused.rows.schools ?? []).toEqual([]);
    expect(JSON.stringify(refused)).toContain(
      `has more than ${MAX_NESTED_VALUES.toLocaleString('en-US')} values inside its fields.`,
    );
  });

  it('names a JSON syntax error and its line', async () => {
    await expect(readSource(file('broken.json', '{\n "schools": [\n  {"a": 1}\n  {"b": 2}\n ]\n}'))).rejects.toThrow(
      /broken\.json is not valid JSON: a comma or \] is expected \(near line 4\)/,
    );
  });
});

describe.each(storeVariants())('an import report of many refused rows on $name', (variant) => {
  let ctx: TestStore;
  beforeEach(async () => {
    ctx = await variant.create();
  });
  afterEach(() => ctx.cleanup());

  it('lists the first refused rows and counts them all', async () => {
    const bad = LISTED_REJECTIONS_MAX + 500;
    // Half refused while reading (a short row), half by the checks (no such school).
    const lines = Array.from({ length: bad }, (_, i) =>
      i % 2 === 0 ? `${i}` : `${i},https://nowhere.example,Name,5B,1`,
    );
    const csv = file('students.csv', ['id,school,fullName,classId,active', ...lines].join('\n'));
    const report = await importFiles(ctx.store.dataSet, [csv], { dryRun: true, limits: { maxRows: bad } });
    const [students] = report.files;
    expect(students?.collections).toEqual([
      expect.objectContaining({ collection: 'students', accepted: 0, rejected: bad }),
    ]);
    expect(students?.rejected).toHaveLength(LISTED_REJECTIONS_MAX);
    expect(students?.rejected.map((r) => r.line)).toEqual(
      Array.from({ length: LISTED_REJECTIONS_MAX }, (_, i) => i + 2),
    );
    expect(formatImportReport(report)).toContain(`... and ${(bad - 50).toLocaleString('en-US')} more rejected rows`);
  });
});
