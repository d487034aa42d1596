// A seeding killed half-way (SIGKILL of the command's process, against a slow
// legacy) and run again ends with the store an uninterrupted seeding makes,
// without fetching again the schools the first run had checkpointed
// (docs/migration.md#seed-from-the-legacy-service).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { schoolKey } from '../../src/domain';
import { seedFromLegacy } from '../../src/legacy-kit/seed';
import { openStore } from '../../src/store';
import { fakeData, startFakeAsmx, type FakeAsmx } from '../support/fake-asmx';
import { ROOT } from '../support/source-service';
import { schoolsOf, seedOptions, sorted } from './seed-support';

const NS = 'http://tempuri.org/';

interface Run {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `npm run import -- ARGS` from the sources, in a process of its own; `killWhen` is polled while it runs. */
function runImport(args: readonly string[], dataDir: string, killWhen?: () => boolean): Promise<Run> {
  const child = spawn(
    process.execPath,
    ['-r', path.join(ROOT, 'test/delivery/support/register-ts.js'), path.join(ROOT, 'src/cli/import.ts'), ...args],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const poll =
    killWhen === undefined
      ? null
      : setInterval(() => {
          if (killWhen()) child.kill('SIGKILL');
        }, 5);
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      if (poll !== null) clearInterval(poll);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** The schools a checkpoint has (JSON Lines after a header); a line being appended as it is read is not counted. */
function checkpointed(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .slice(1)
    .flatMap((line) => {
      try {
        return [(JSON.parse(line) as { key: string }).key];
      } catch {
        return [];
      }
    });
}

describe('resuming a seeding killed half-way', () => {
  let dir: string;
  const fakes: FakeAsmx[] = [];
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sns-seed-resume-'));
  });
  afterEach(async () => {
    await Promise.all(fakes.splice(0).map((fake) => fake.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('ends with the store of an uninterrupted run, fetching no checkpointed school again', async () => {
    const data = fakeData(12, 8);
    const slow = await startFakeAsmx(data, { latencyMs: 30 });
    fakes.push(slow);
    const schoolsFile = path.join(dir, 'schools.txt');
    writeFileSync(schoolsFile, `${schoolsOf(data)}\n`);
    const stateFile = `${schoolsFile}.seed-state.jsonl`;
    const args = ['--from-asmx', slow.url, '--schools', schoolsFile, '--concurrency', '2', '--rate', '0'];
    const dataDir = path.join(dir, 'data');

    const first = await runImport(args, dataDir, () => checkpointed(stateFile).length >= 4);
    expect(first.signal).toBe('SIGKILL');
    const doneAtKill = checkpointed(stateFile);
    // Killed half-way: some schools checkpointed, not all.
    expect(doneAtKill.length).toBeGreaterThanOrEqual(4);
    expect(doneAtKill.length).toBeLessThan(12);
    const callsAtKill = slow.calls.length;

    const second = await runImport(args, dataDir);
    expect(second.stderr).toContain(
      `${doneAtKill.length} schools already written (checkpoint schools.txt.seed-state.jsonl)`,
    );
    expect(second.code).toBe(0);
    const fetchedAgain = slow.calls
      .slice(callsAtKill)
      .filter((call) => call.action === `${NS}GetStudentSchool`)
      .map((call) => schoolKey(call.params.school_base_url ?? ''));
    expect(fetchedAgain.filter((key) => doneAtKill.includes(key))).toEqual([]);
    expect(new Set(fetchedAgain).size).toBe(12 - doneAtKill.length);
    // The report names every school, those of the first run too.
    for (const url of data.schools.keys()) expect(second.stdout).toContain(`${url}:\n`);
    expect(checkpointed(stateFile)).toHaveLength(12);

    // The same data seeded in one go, into another store.
    const quick = await startFakeAsmx(data);
    fakes.push(quick);
    const oneGo = await openStore({ dataDir: path.join(dir, 'one-go') });
    const resumed = await openStore({ dataDir });
    try {
      await seedFromLegacy(oneGo.dataSet, seedOptions(quick.url, data));
      expect(sorted(await resumed.dataSet.readDataSet())).toEqual(sorted(await oneGo.dataSet.readDataSet()));
      if (process.env.SEED_TEST_FIGURES !== undefined) {
        process.stderr.write(
          `resume: killed with ${doneAtKill.length}/12 schools checkpointed after ${callsAtKill} calls; second run: ${slow.calls.length - callsAtKill} calls, ${new Set(fetchedAgain).size} schools fetched\n`,
        );
      }
    } finally {
      await Promise.all([oneGo.lifecycle.close(), resumed.lifecycle.close()]);
    }
  });
});
