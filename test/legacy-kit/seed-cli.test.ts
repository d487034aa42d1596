// `npm run import -- --from-asmx URL --schools FILE` as an operator runs it:
// the options, the report on stdout, progress and errors on stderr, exit codes
// a script can test, and a password that shows nowhere.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main as importMain } from '../../src/cli/import';
import { openStore } from '../../src/store';
import { fakeData, startFakeAsmx, type FakeAsmx } from '../support/fake-asmx';
import { expectedDataSet, schoolsOf, sorted } from './seed-support';

describe('npm run import -- --from-asmx', () => {
  let dir: string;
  let output: string;
  let legacy: FakeAsmx | null = null;
  const saved = {
    DATA_DIR: process.env.DATA_DIR,
    DATABASE_URL: process.env.DATABASE_URL,
    ASMX_PASSWORD: process.env.ASMX_PASSWORD,
  };

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sns-seed-cli-'));
    process.env.DATA_DIR = path.join(dir, 'data');
    process.env.DATABASE_URL = '';
    output = '';
    const capture = (chunk: string | Uint8Array) => {
      output += String(chunk);
      return true;
    };
    jest.spyOn(process.stdout, 'write').mockImplementation(capture);
    jest.spyOn(process.stderr, 'write').mockImplementation(capture);
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    await legacy?.close();
    legacy = null;
    rmSync(dir, { recursive: true, force: true });
  });

  const schoolsFile = (text: string) => {
    const file = path.join(dir, 'schools.txt');
    writeFileSync(file, text);
    return file;
  };

  it('seeds through Basic with the password from ASMX_PASSWORD, prints the report and exits 0', async () => {
    const data = fakeData(12, 3);
    legacy = await startFakeAsmx(data, { basic: { user: 'seeder', password: 'not-in-any-output' } });
    process.env.ASMX_PASSWORD = 'not-in-any-output';
    const file = schoolsFile(`${schoolsOf(data)}\n`);
    const args = ['--from-asmx', legacy.url, '--schools', file, '--user', 'seeder', '--rate=0'];
    expect(await importMain(args)).toBe(0);
    expect(output).toContain('https://school-11.legacy.example:\n  schools: 1 inserted, 0 updated, 0 rejected');
    expect(output).toContain(`Seeded from ${legacy.url}: 12 schools fetched (36 students listed), 0 skipped`);
    // Not a terminal: a line every ten schools and at the end, counts only.
    expect(output).toContain('seeded 10/12 schools: ');
    expect(output).toContain('seeded 12/12 schools: 36 students, 0 not seeded');
    expect(output).not.toContain('not-in-any-output');
    // The checkpoint's reports name rows of a roster.
    expect(statSync(`${file}.seed-state.jsonl`).mode & 0o777).toBe(0o600);
    const store = await openStore({ dataDir: path.join(dir, 'data') });
    try {
      expect(sorted(await store.dataSet.readDataSet())).toEqual(expectedDataSet(data));
    } finally {
      await store.lifecycle.close();
    }

    // Again: everything is checkpointed, nothing is fetched, the report is whole.
    output = '';
    const calls = legacy.calls.length;
    expect(await importMain(args)).toBe(0);
    expect(legacy.calls.length).toBe(calls);
    expect(output).toContain('12 schools already written (checkpoint schools.txt.seed-state.jsonl)');
    expect(output).toContain('https://school-0.legacy.example:\n  schools: 1 inserted');

    // A wrong password: the legacy's 401, exit 1, the password nowhere.
    process.env.ASMX_PASSWORD = 'wrong-secret-123';
    output = '';
    expect(await importMain([...args, '--refresh'])).toBe(1);
    expect(output).toContain('HTTP 401: the legacy service refused the credentials');
    expect(output).not.toContain('wrong-secret-123');
  });

  it('names a school on its line; exits 1 when rows were refused or the legacy cannot be reached', async () => {
    const data = fakeData(1, 2);
    legacy = await startFakeAsmx(data);
    const file = schoolsFile('https://school-0.legacy.example   Al Noor School\n');
    expect(await importMain(['--from-asmx', legacy.url, '--schools', file])).toBe(0);
    const store = await openStore({ dataDir: path.join(dir, 'data') });
    try {
      expect((await store.dataSet.readDataSet()).schools).toEqual([
        {
          baseUrl: 'https://school-0.legacy.example',
          name: 'Al Noor School',
          timeZone: 'UTC',
          quietHours: null,
          pushOptions: null,
          fcmProject: null,
        },
      ]);
    } finally {
      await store.lifecycle.close();
    }
    const url = legacy.url;
    await legacy.close();
    legacy = null;
    output = '';
    expect(await importMain(['--from-asmx', url, '--schools', file, '--refresh', '--retries', '0'])).toBe(1);
    expect(output).toContain(`${url}/NotificationNotes.asmx?wsdl: cannot connect (ECONNREFUSED)`);
  });

  it.each([
    [['--schools', 'x.txt', '--from-asmx'], '--from-asmx needs a value.'],
    [['--from-asmx', 'http://127.0.0.1:9'], '--schools FILE is required.'],
    [['--from-asmx', 'ftp://legacy.example', '--schools', 'x'], '--from-asmx takes the legacy service base URL'],
    [
      ['--from-asmx', 'http://seeder:pw-in-url@legacy.example', '--schools', 'x'],
      'no credentials: use --user NAME with the password in ASMX_PASSWORD',
    ],
    [
      ['--from-asmx=http://legacy.example', '--schools', 'x', '--concurrency', '0'],
      '--concurrency takes a number from 1 to 64.',
    ],
    [
      ['--from-asmx=http://legacy.example', '--schools', 'x', '--rate', 'fast'],
      '--rate takes a number from 0 to 10000.',
    ],
    [['--from-asmx=http://legacy.example', '--schools', 'x', '--strict'], 'Unknown option --strict.'],
  ])('refuses %j with exit 2', async (args, message) => {
    expect(await importMain(args)).toBe(2);
    expect(output).toContain(message);
    expect(output).not.toMatch(/seeder|pw-in-url/);
    expect(output).toContain('Usage: npm run import -- --from-asmx URL --schools FILE [options]');
  });

  it('refuses a schools file that lists no URL, with exit 2', async () => {
    const file = schoolsFile('school-a\n');
    expect(await importMain(['--from-asmx', 'http://127.0.0.1:9', '--schools', file])).toBe(2);
    expect(output).toContain('line 1: not a school base URL');
  });
});
