// The two commands as an operator runs them: arguments, the summary on
// stdout, and exit codes a script can test.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main as exportMain } from '../../src/cli/export';
import { main as importMain } from '../../src/cli/import';
import { openStore } from '../../src/store';
import { captureCommandOutput, type CommandOutput } from '../support/command-output';

describe('import and export commands', () => {
  let dir: string;
  let output: CommandOutput;
  const saved = { DATA_DIR: process.env.DATA_DIR, DATABASE_URL: process.env.DATABASE_URL };

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sns-cli-'));
    process.env.DATA_DIR = path.join(dir, 'data');
    process.env.DATABASE_URL = '';
    output = captureCommandOutput();
  });
  afterEach(() => {
    jest.restoreAllMocks();
    Object.assign(process.env, saved);
    rmSync(dir, { recursive: true, force: true });
  });

  const file = (name: string, text: string) => {
    const full = path.join(dir, name);
    writeFileSync(full, text);
    return full;
  };

  it('imports, prints the summary and exits 0; 1 when rows were rejected; 2 for bad usage', async () => {
    const schools = file('schools.csv', 'baseUrl,name\nhttps://hilltop.school.example,Hilltop\n');
    expect(await importMain([schools])).toBe(0);
    expect(output.text()).toContain('schools: 1 inserted, 0 updated, 0 rejected');

    const students = file('students.csv', 'id,school,fullName,active\n1,https://hilltop.school.example,A,maybe\n');
    expect(await importMain(['--strict', students])).toBe(1);
    expect(output.text()).toContain('line 2 (students): active must be "1" or "0".');

    expect(await importMain([])).toBe(2);
    expect(await importMain(['--force', schools])).toBe(2);
    expect(output.text()).toContain('Unknown option --force');
  });

  it('exports what was imported', async () => {
    file('schools.csv', 'baseUrl,name\nhttps://hilltop.school.example,Hilltop\n');
    expect(await importMain([path.join(dir, 'schools.csv')])).toBe(0);
    expect(await exportMain(['--format', 'json', path.join(dir, 'out')])).toBe(0);
    expect(output.text()).toContain('Exported 1 schools, 0 devices, 0 students, 0 notes, 0 absences');
    const store = await openStore({ dataDir: path.join(dir, 'data') });
    try {
      expect(await store.dataSet.readDataSet()).toMatchObject({
        schools: [{ baseUrl: 'https://hilltop.school.example', name: 'Hilltop' }],
      });
    } finally {
      await store.lifecycle.close();
    }
    expect(await exportMain(['--format', 'xml', 'x'])).toBe(2);
  });

  it('takes the collection of a CSV file from --collection, else its name, else its header row', async () => {
    const schools = file('schools-2026.csv', 'baseUrl,name\nhttps://hilltop.school.example,Hilltop\n');
    // The header names the fields of schools only.
    expect(await importMain([schools])).toBe(0);
    expect(output.text()).toContain('schools: 1 inserted');

    // A header of an id alone says nothing; --collection says it for the files after it, not before.
    const pupils = file('pupils-2026.csv', 'id,school,fullName,remark\n7,https://hilltop.school.example,A,x\n');
    const more = file('export (2).csv', 'id,school\n8,https://hilltop.school.example\n');
    const ids = file('ids.csv', 'id\n9\n');
    output.clear();
    expect(await importMain(['--dry-run', ids])).toBe(1);
    expect(output.text()).toContain('cannot tell which collection this CSV file holds');
    output.clear();
    expect(await importMain([schools, '--collection', 'students', pupils, more])).toBe(1);
    expect(output.text()).toContain('schools: 0 inserted, 1 updated');
    expect(output.text()).toContain('students: 1 inserted');
    expect(output.text()).toContain('the header row lacks fullName');
    output.clear();
    expect(await importMain(['--collection=students', pupils])).toBe(0);
    expect(output.text()).toContain('students: 0 inserted, 1 updated');

    expect(await importMain(['--collection', 'pupils', pupils])).toBe(2);
    expect(await importMain(['--collection'])).toBe(2);
    expect(output.text()).toContain('--collection takes one of schools, devices, students, notes, absences.');
    output.clear();
    expect(await importMain(['--collection', 'schools', file('data.json', '{"schools": []}')])).toBe(1);
    expect(output.text()).toContain('--collection is for CSV files');
  });
});
