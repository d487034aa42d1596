// PostgreSQL stopped under load (docs/chaos.md): a throwaway cluster this
// suite starts itself, the service on it with its worker, clients queueing
// and reading; the cluster is stopped for CHAOS_OUTAGE_SECONDS (default 30)
// and started again. The process must live, calls must fail fast with
// ASMX-shaped errors, /readyz must fail and pass again, calls must succeed
// within 2 s of the database's return without a restart, and every call
// acknowledged before, during or after must be delivered.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { openStore } from '../../src/store';
import { startFakeProviders, type FakeProviders } from './support/fake-providers';
import { RawClient, rawRequest, type Answered } from './support/raw-client';
import { REPO_ROOT, startService, type ServiceProcess } from './support/service-process';
import { classify, leakIn } from './support/shapes';
import { startTempPostgres, type TempPostgres } from './support/temp-postgres';
import { loadDataSet, startWriteLoad } from './support/write-load';

const OUTAGE_SECONDS = Number(process.env.CHAOS_OUTAGE_SECONDS ?? 30);
const OPERATION_TIMEOUT_MS = 30_000;
/** "Fast": a failed call during the outage answers within this (a quarter of the operation timeout). */
const FAIL_FAST_MS = OPERATION_TIMEOUT_MS / 4;
const RECOVERY_MS = 2_000;
const STUDENTS = 50;

let pg: TempPostgres;
let fakes: FakeProviders;
let keyDir: string;
let service: ServiceProcess;

beforeAll(async () => {
  pg = await startTempPostgres();
  fakes = await startFakeProviders();
  keyDir = mkdtempSync(path.join(os.tmpdir(), 'sns-chaos-key-'));
  const admin = new Client({ connectionString: pg.url });
  await admin.connect();
  await admin.query('create database outage');
  await admin.end();
  const databaseUrl = pg.url.replace(/\/postgres$/, '/outage');
  const store = await openStore({ databaseUrl, dataDir: os.tmpdir() });
  await store.dataSet.writeDataSet(loadDataSet(STUDENTS));
  await store.lifecycle.close();
  service = await startService({
    DATABASE_URL: databaseUrl,
    ...fakes.environment(keyDir),
    OPERATION_TIMEOUT_MS: String(OPERATION_TIMEOUT_MS),
    AUTH_CODE_LIMIT_PER_PHONE: 'off',
    AUTH_CODE_LIMIT_PER_CALLER: 'off',
    AUTH_CODE_LIMIT_GLOBAL: 'off',
    DELIVERY_POLL_MS: '100',
    DELIVERY_LEASE_SECONDS: '5',
    DELIVERY_TIMEOUT_MS: '2000',
    DELIVERY_RETRY_BASE_SECONDS: '1',
    DELIVERY_RETRY_MAX_SECONDS: '2',
  });
});
afterAll(async () => {
  await service?.stop();
  await fakes?.close();
  await pg?.remove();
  rmSync(keyDir, { recursive: true, force: true });
});

const waitFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Sample {
  readonly at: number;
  readonly status: number | string;
  readonly ms: number;
  readonly answer: Answered | null;
}

/** Polls a request every `everyMs` until stopped, keeping every outcome. */
function poll(request: Buffer, everyMs: number) {
  const samples: Sample[] = [];
  let running = true;
  const client = new RawClient(service.port);
  const done = (async () => {
    while (running) {
      const at = Date.now();
      const outcome = await client.send(request, { timeoutMs: OPERATION_TIMEOUT_MS + 5_000 });
      samples.push({
        at,
        status: outcome.kind === 'answer' ? outcome.status : outcome.kind,
        ms: outcome.ms,
        answer: outcome.kind === 'answer' ? outcome : null,
      });
      await waitFor(everyMs);
    }
    client.close();
  })();
  return {
    samples,
    async stop() {
      running = false;
      await done;
    },
  };
}

it(`the service lives through a ${OUTAGE_SECONDS} s PostgreSQL outage and recovers without a restart`, async () => {
  const load = startWriteLoad(() => service.port, { clients: 4, students: STUDENTS, prefix: 'o' });
  const soapRead = `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><GetTokenDevice xmlns="http://tempuri.org/"><id>dev-5001</id></GetTokenDevice></soap:Body></soap:Envelope>`;
  const reads = poll(
    rawRequest(
      'POST',
      '/PushNotificationMobile.asmx',
      [
        ['Content-Type', 'text/xml; charset=utf-8'],
        ['SOAPAction', '"http://tempuri.org/GetTokenDevice"'],
        ['Content-Length', String(soapRead.length)],
      ],
      soapRead,
    ),
    50,
  );
  const getReads = poll(rawRequest('GET', '/GetStudentsAbsence.asmx/GetStudentsAbcenceByID?STDid=5001', []), 50);
  const ready = poll(rawRequest('GET', '/readyz', []), 100);

  const say = (line: string) => process.stdout.write(`outage: ${line}\n`);
  await load.acknowledged(200);
  say('200 calls acknowledged; stopping PostgreSQL');
  const stoppedAt = Date.now();
  await pg.stop();
  const downAt = Date.now();
  await waitFor(OUTAGE_SECONDS * 1000);
  const aliveThroughout = service.alive();
  say(`starting PostgreSQL again after ${OUTAGE_SECONDS} s`);
  // The outage ends when the start is asked for: the server accepts connections a little
  // before pg_ctl notices it is up and returns, and a read may succeed in between.
  const startAskedAt = Date.now();
  await pg.start();
  const upAt = Date.now();
  say('PostgreSQL is back');
  // Wait for the first successful read after the return, then a little more load.
  while (Date.now() - upAt < 30_000 && !reads.samples.some((s) => s.at >= upAt && s.status === 200)) await waitFor(20);
  await load.acknowledged(200, 60_000).catch((err: Error) => say(err.message));
  await Promise.all([load.stop(), reads.stop(), getReads.stop(), ready.stop()]);

  // Nothing acknowledged is lost: the worker delivers what was queued around the outage.
  const missing = () => ({
    pushes: [...load.ackedPushes].filter((key) => !fakes.pushes.has(key)),
    sms: [...load.ackedSms].filter((key) => !fakes.sms.has(key)),
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && missing().pushes.length + missing().sms.length > 0) await waitFor(200);

  // A sample belongs to the outage by when it started: a call that hangs through the
  // outage and ends after the database is back is the slow failure this test exists for.
  const startedDuring = (s: Sample) => s.at >= downAt + 1000 && s.at < startAskedAt;
  const endedDuring = (s: Sample) => startedDuring(s) && s.at + s.ms <= startAskedAt;
  const pollers = { 'SOAP read': reads, 'HTTP GET read': getReads, '/readyz': ready };
  const outageSamples = Object.entries(pollers).map(([name, poller]) => ({
    name,
    samples: poller.samples.filter(startedDuring),
  }));
  const slowDuring = outageSamples.flatMap(({ name, samples }) =>
    samples.filter((s) => !(s.ms < FAIL_FAST_MS)).map((s) => `${name}: ${s.status} after ${s.ms.toFixed(0)} ms`),
  );
  const callsDuring = [...reads.samples, ...getReads.samples].filter(startedDuring);
  const during = callsDuring.filter(endedDuring);
  const failedDuring = during.filter((s) => s.status !== 200);
  const unshaped = callsDuring.filter((s) => {
    if (s.status === 200) return false;
    if (s.answer === null) return true;
    const c = classify(s.answer);
    const asmx =
      (c.shape === 'soap-fault' && (c.faultCode === 'Server' || c.faultCode === 'Receiver')) ||
      c.shape === 'text-error';
    return !asmx || s.answer.status !== 500 || leakIn(s.answer, [REPO_ROOT, os.tmpdir()]) !== null;
  });
  const slowest = Math.max(0, ...outageSamples.flatMap(({ samples }) => samples.map((s) => s.ms)));
  const readyDuring = ready.samples.filter(endedDuring);
  const firstReadOk = reads.samples.find((s) => s.at >= upAt && s.status === 200);
  const firstGetOk = getReads.samples.find((s) => s.at >= upAt && s.status === 200);
  const firstReady = ready.samples.find((s) => s.at >= upAt && s.status === 200);
  const recovered = (s: Sample | undefined) => (s === undefined ? Infinity : s.at + s.ms - upAt);
  const lost = missing();
  const bodies = [
    ...new Set(
      failedDuring.slice(0, 200).map((s) => s.answer?.body.toString('utf8').slice(0, 160) ?? String(s.status)),
    ),
  ];
  process.stdout.write(
    [
      `outage: PostgreSQL down ${((upAt - stoppedAt) / 1000).toFixed(1)} s (stop took ${downAt - stoppedAt} ms); process alive throughout: ${aliveThroughout}`,
      `outage: during: ${during.length} reads, ${failedDuring.length} failed, slowest call started in the outage (reads and /readyz) ${slowest.toFixed(0)} ms, /readyz ${readyDuring.filter((s) => s.status !== 200).length}/${readyDuring.length} failing`,
      `outage: failure answers seen: ${bodies.map((b) => JSON.stringify(b)).join(' | ')}`,
      `outage: recovery after the database returned: SOAP read ${recovered(firstReadOk).toFixed(0)} ms, HTTP GET ${recovered(firstGetOk).toFixed(0)} ms, /readyz ${recovered(firstReady).toFixed(0)} ms`,
      `outage: calls: ${[...load.outcomes].map(([k, n]) => `${k}: ${n}`).join(', ')}; acknowledged push ${load.ackedPushes.size}, SMS ${load.ackedSms.size}; lost push ${lost.pushes.length}, SMS ${lost.sms.length}`,
      '',
    ].join('\n'),
  );

  expect(aliveThroughout).toBe(true);
  expect(service.alive()).toBe(true);
  expect(failedDuring.length).toBeGreaterThan(0);
  expect(failedDuring.length).toBe(during.length);
  expect(unshaped.map((s) => s.answer?.body.toString('utf8') ?? s.status)).toEqual([]);
  expect(outageSamples.filter(({ samples }) => samples.length === 0).map(({ name }) => name)).toEqual([]);
  expect(slowDuring).toEqual([]);
  expect(readyDuring.length).toBeGreaterThan(0);
  expect(readyDuring.every((s) => s.status === 503)).toBe(true);
  expect(recovered(firstReadOk)).toBeLessThanOrEqual(RECOVERY_MS);
  expect(recovered(firstGetOk)).toBeLessThanOrEqual(RECOVERY_MS);
  expect(recovered(firstReady)).toBeLessThanOrEqual(RECOVERY_MS);
  expect(lost).toEqual({ pushes: [], sms: [] });
});
