// The seeding benchmark (docs/migration.md#seed-from-the-legacy-service):
// `npm run import -- --from-asmx` as an operator runs it (the built command,
// a process of its own, embedded SQLite) against the tests' fake legacy
// answering every call after a set latency, as a legacy on the other side of
// a network would. Run after `npm run build`:
// `node -r ./test/delivery/support/register-ts.js scripts/bench-seed.ts`.
// BENCH_SEED_SCHOOLS, BENCH_SEED_STUDENTS (a school), BENCH_SEED_LATENCY_MS
// change the case. The fake runs in this process, the seeding in another.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fakeData, startFakeAsmx } from '../test/support/fake-asmx';
import { checkPositive, runCommand, runMain, scaled } from './bench-support';

const SCHOOLS = scaled('BENCH_SEED_SCHOOLS', 40, 2);
const PER_SCHOOL = scaled('BENCH_SEED_STUDENTS', 50, 5);
const LATENCY_MS = scaled('BENCH_SEED_LATENCY_MS', 20, 2);
const BARE_SECONDS = scaled(null, 3, 0.2);
const CONCURRENCY = 4;

/** Calls a second a bare client gets from the fake: CONCURRENCY loops of GetTokenDevice, nothing else done. */
async function bareCallsPerSecond(url: string, seconds = BARE_SECONDS): Promise<number> {
  const body =
    '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><GetTokenDevice xmlns="http://tempuri.org/"><id>dev-100000</id></GetTokenDevice></soap:Body></soap:Envelope>';
  const headers = { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: '"http://tempuri.org/GetTokenDevice"' };
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  let calls = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        await (await fetch(`${url}/PushNotificationMobile.asmx`, { method: 'POST', headers, body })).text();
        calls++;
      }
    }),
  );
  return calls / ((performance.now() - started) / 1000);
}

export async function benchSeed(): Promise<void> {
  const data = fakeData(SCHOOLS, PER_SCHOOL);
  const students = SCHOOLS * PER_SCHOOL;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sns-bench-seed-'));
  const legacy = await startFakeAsmx(data, { latencyMs: LATENCY_MS });
  try {
    const schoolsFile = path.join(dir, 'schools.txt');
    writeFileSync(schoolsFile, `${[...data.schools.keys()].join('\n')}\n`);
    // What a client doing nothing but calls gets here at this concurrency (on a loaded machine, less than
    // CONCURRENCY calls per latency): the seeding's rate is told as a share of it.
    const ceiling = checkPositive('calls/s of the bare client', await bareCallsPerSecond(legacy.url));
    console.log(
      `\nSeeding ${students.toLocaleString('en-US')} students of ${SCHOOLS} schools from a legacy answering in ${LATENCY_MS} ms (concurrency ${CONCURRENCY}, SQLite, whole command)`,
    );
    console.log(
      `A bare client of ${CONCURRENCY} call loops: ${ceiling.toFixed(0)} calls/s (at most ${(CONCURRENCY * 1000) / LATENCY_MS}).`,
    );
    console.log('| --rate | seconds | calls | students/s | calls/s | calls/s of the bare client (or the rate) |');
    console.log('|---|---|---|---|---|---|');
    for (const rate of ['0', '50']) {
      const before = legacy.calls.length;
      const { seconds } = await runCommand(
        'import',
        [
          '--from-asmx',
          legacy.url,
          '--schools',
          schoolsFile,
          '--state',
          path.join(dir, `state-${rate}.json`),
          '--concurrency',
          String(CONCURRENCY),
          '--rate',
          rate,
        ],
        path.join(dir, `data-${rate}`),
        'ignore',
      );
      const calls = checkPositive(`--rate ${rate}: calls`, legacy.calls.length - before);
      const perSecond = checkPositive(`--rate ${rate}: calls/s`, calls / seconds);
      const limit = rate === '0' ? ceiling : Math.min(ceiling, Number(rate));
      console.log(
        `| ${rate === '0' ? '0 (none)' : rate} | ${seconds.toFixed(2)} | ${calls} | ${(students / seconds).toFixed(0)} | ${perSecond.toFixed(0)} | ${((100 * perSecond) / limit).toFixed(0)}% of ${limit.toFixed(0)} |`,
      );
    }
    console.log(`Max calls in flight seen by the legacy: ${legacy.maxInFlight()} (bound ${CONCURRENCY}).`);
  } finally {
    await legacy.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) runMain(benchSeed);
