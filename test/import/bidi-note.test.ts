// An import says which records hold bidirectional control characters
// (src/shared/bidi.ts): imported as they are, worth a look at the source
// (docs/console.md#text-direction).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readSource } from '../../src/import/read-source';

describe('the import note on bidirectional controls', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sns-bidi-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names the count and the first record in a CSV file, and keeps the text as it is', async () => {
    const file = path.join(dir, 'students.csv');
    writeFileSync(
      file,
      'id,school,fullName\n1,https://a.example,Plain Name\n2,https://a.example,Ahmad \u202Egnp.exe\n3,https://a.example,\u2067x\u2069\n',
    );
    const source = await readSource(file);
    expect(source.notes).toEqual([
      expect.stringMatching(
        /^.*students\.csv: 2 records hold bidirectional control characters .* the first: students, line 3\./,
      ),
    ]);
    expect(source.rows.students?.[1].record.fullName).toBe('Ahmad \u202Egnp.exe');
  });

  it('says nothing of a file without them, Arabic text included', async () => {
    const file = path.join(dir, 'data.json');
    writeFileSync(
      file,
      JSON.stringify({ students: [{ id: '1', school: 'https://a.example', fullName: 'مُحَمَّد الحَسَن' }] }),
    );
    expect((await readSource(file)).notes).toEqual([]);
  });
});
