// The import benchmark case: `npm run import` of 100,000 students (and their
// devices) into a fresh embedded store, then the same files again (every
// record an update). Run by `npm run bench`, or alone after `npm run build`:
// `node -r ./test/delivery/support/register-ts.js scripts/bench-import.ts`.
// The target is under a minute for the first run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkPositive, runCommand, runMain, scaled } from './bench-support';

const STUDENTS = scaled('BENCH_IMPORT_STUDENTS', 100_000, 50);
const SCHOOLS = 20;

function writeFiles(dir: string): string[] {
  const schools = ['baseUrl,name'];
  for (let s = 0; s < SCHOOLS; s++) schools.push(`https://school-${s}.bench.example,Bench School ${s}`);
  const students = ['id,school,fullName,deviceId,active,classId'];
  const devices = ['id,token,platform'];
  for (let i = 0; i < STUDENTS; i++) {
    const id = String(1_000_000 + i);
    const name = i % 3 === 0 ? `طالب رقم ${i}` : `"Student ${i}, the ${i % 7}th"`;
    students.push(
      `${id},https://school-${i % SCHOOLS}.bench.example,${name},dev-${id},${i % 10 === 0 ? 0 : 1},C${i % 40}`,
    );
    devices.push(`dev-${id},fcm:${id}-0123456789abcdef,${i % 2 === 0 ? 'android' : 'ios'}`);
  }
  const files = { 'schools.csv': schools, 'devices.csv': devices, 'students.csv': students };
  return Object.entries(files).map(([name, lines]) => {
    const file = path.join(dir, name);
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  });
}

export async function benchImport(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sns-bench-import-'));
  try {
    const files = writeFiles(dir);
    const dataDir = path.join(dir, 'data');
    console.log(
      `\nImport of ${STUDENTS.toLocaleString('en-US')} students and their devices (npm run import, SQLite, whole command)`,
    );
    console.log('| run | seconds | summary |');
    console.log('|---|---|---|');
    for (const run of ['first (inserts)', 'second (updates)']) {
      const { seconds, out } = await runCommand('import', files, dataDir);
      const total = /Total: (.*)/.exec(out)?.[1];
      if (total === undefined) throw new Error(`the import printed no Total line:\n${out}`);
      checkPositive('import seconds', seconds);
      console.log(`| ${run} | ${seconds.toFixed(1)} | ${total} |`);
    }
    console.log('Target: the first run under 60 s.');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) runMain(benchImport);
