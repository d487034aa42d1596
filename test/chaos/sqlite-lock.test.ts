// An outside write lock on the SQLite file (docs/chaos.md): the service on
// SQLite with its worker, clients queueing and reading; a second connection
// (as the sqlite3 shell or a backup tool would) takes the write lock with
// BEGIN IMMEDIATE and an insert and holds it for CHAOS_LOCK_SECONDS (default
// 20). Reads and /healthz must keep answering quickly throughout (the
// process's event loop is never held by the wait); a write that came in
// meanwhile must complete once the lock is released or fail with the store's
// "unavailable" fault at its deadline; and every call acknowledged must be in
// the store, and delivered, afterwards.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { seededStore, type TempStore } from '../support/built-service';
import { startFakeProviders, type FakeProviders } from './support/fake-providers';
import { RawClient, rawRequest, type Answered } from './support/raw-client';
import { REPO_ROOT, startService, type ServiceProcess } from './support/service-process';
import { classify, leakIn } from './support/shapes';
import { loadDataSet, SCHOOL, startWriteLoad } from './support/write-load';

const LOCK_SECONDS = Number(process.env.CHAOS_LOCK_SECONDS ?? 20);
const STUDENTS = 50;
/** Reads and /healthz while the lock is held: their 99th percentile stays under this. */
const P99_LIMIT_MS = 100;
/** How long a write waits for the lock before failing (DEFAULT_LOCK_WAIT in src/store/connection/sqlite-lock-wait.ts), and some slack. */
const WRITE_DEADLINE_MS = 5_000;
const WRITE_SLACK_MS = 1_000;
const OPERATION_TIMEOUT_MS = 30_000;

let temp: TempStore;
let fakes: FakeProviders;
let keyDir: string;
let service: ServiceProcess;
let holder: Database.Database | null = null;

beforeAll(async () => {
  temp = await seededStore(loadDataSet(STUDENTS), 'sns-chaos-lock-');
  fakes = await startFakeProviders();
  keyDir = mkdtempSync(path.join(os.tmpdir(), 'sns-chaos-key-'));
  service = await startService({
    DATA_DIR: temp.dataDir,
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
  if (holder?.open) holder.close();
  await service?.stop();
  await fakes?.close();
  temp?.remove();
  rmSync(keyDir, { recursive: true, force: true });
});

const waitFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Sample {
  readonly at: number;
  readonly ms: number;
  readonly status: number | string;
  readonly answer: Answered | null;
}

/** Sends `request()` every `everyMs` until stopped, keeping every outcome. */
function poll(request: () => Buffer, everyMs: number) {
  const samples: Sample[] = [];
  let running = true;
  const client = new RawClient(service.port);
  const done = (async () => {
    while (running) {
      const at = Date.now();
      const outcome = await client.send(request(), { timeoutMs: OPERATION_TIMEOUT_MS + 5_000 });
      const answer = outcome.kind === 'answer' ? outcome : null;
      samples.push({ at, ms: outcome.ms, status: answer?.status ?? outcome.kind, answer });
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

function soapCall(endpoint: string, operation: string, inner: string): Buffer {
  const body = `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><${operation} xmlns="http://tempuri.org/">${inner}</${operation}></soap:Body></soap:Envelope>`;
  return rawRequest(
    'POST',
    `/${endpoint}.asmx`,
    [
      ['Content-Type', 'text/xml; charset=utf-8'],
      ['SOAPAction', `"http://tempuri.org/${operation}"`],
      ['Content-Length', String(Buffer.byteLength(body))],
    ],
    body,
  );
}

function p99(samples: readonly Sample[]): number {
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
}

it(`reads and /healthz keep answering through an outside write lock held ${LOCK_SECONDS} s, and no acknowledged write is lost`, async () => {
  const say = (line: string) => process.stdout.write(`sqlite lock: ${line}\n`);
  const load = startWriteLoad(() => service.port, { clients: 4, students: STUDENTS, prefix: 'l' });
  const reads = poll(() => soapCall('PushNotificationMobile', 'GetTokenDevice', '<id>dev-5001</id>'), 20);
  const getReads = poll(() => rawRequest('GET', '/PushNotificationMobile.asmx/GetTokenDevice?id=dev-5001', []), 20);
  const health = poll(() => rawRequest('GET', '/healthz', []), 20);
  // Writes of their own, to time each one and read its answer: SOAP calls
  // that queue a push, and an HTTP GET that marks absences seen.
  let probe = 0;
  const soapWrites = Array.from({ length: 3 }, () =>
    poll(
      () =>
        soapCall(
          'NotificationNotes',
          'SendNotificationType',
          `<id>5002</id><baseUrlSchool>${SCHOOL}</baseUrlSchool><TypeNotfication>probe-${probe++}</TypeNotfication>`,
        ),
      100,
    ),
  );
  const getWrites = poll(
    () => rawRequest('GET', '/GetStudentsAbsence.asmx/GetStudentsAbcenceByID?STDid=5003', []),
    100,
  );
  const probes = [...soapWrites, getWrites];

  await load.acknowledged(100);
  say('100 calls acknowledged; taking the write lock from a second connection');
  holder = new Database(path.join(temp.dataDir, 'service.sqlite'));
  holder.exec('begin immediate');
  holder
    .prepare('insert into devices (id, push_token, platform, updated_at) values (?, null, null, ?)')
    .run('dev-outside', new Date().toISOString());
  const lockedAt = Date.now();
  await waitFor(LOCK_SECONDS * 1000);
  holder.exec('commit');
  const releasedAt = Date.now();
  say(`lock released after ${((releasedAt - lockedAt) / 1000).toFixed(1)} s`);
  const aliveThroughout = service.alive();
  await load.acknowledged(100, 60_000).catch((err: Error) => say(err.message));
  await Promise.all([load.stop(), reads.stop(), getReads.stop(), health.stop(), ...probes.map((p) => p.stop())]);

  // Every acknowledged call is in the store...
  const acknowledgedProbes = soapWrites.flatMap((p) => p.samples).filter((s) => s.status === 200).length;
  const stored = holder.prepare('select type from push_notifications').pluck().all() as string[];
  const storedTypes = new Set(stored);
  const storedPhones = new Set(holder.prepare('select phone from auth_code_messages').pluck().all() as string[]);
  const storedProbes = stored.filter((type) => type.startsWith('probe-')).length;
  const notStored = {
    pushes: [...load.ackedPushes].filter((key) => !storedTypes.has(key)),
    sms: [...load.ackedSms].filter((key) => !storedPhones.has(key)),
  };
  const outsideRow = holder.prepare("select count(*) from devices where id = 'dev-outside'").pluck().get();
  // ... and delivered.
  const undelivered = () => ({
    pushes: [...load.ackedPushes].filter((key) => !fakes.pushes.has(key)),
    sms: [...load.ackedSms].filter((key) => !fakes.sms.has(key)),
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && undelivered().pushes.length + undelivered().sms.length > 0) await waitFor(200);

  // A call belongs to the lock by when it started; the first 100 ms of the lock are left out (the lock is taken in between).
  const startedDuring = (s: Sample) => s.at >= lockedAt + 100 && s.at < releasedAt;
  const during = {
    'SOAP read': reads.samples.filter(startedDuring),
    'HTTP GET read': getReads.samples.filter(startedDuring),
    '/healthz': health.samples.filter(startedDuring),
  };
  const writesDuring = probes.flatMap((p) => p.samples).filter(startedDuring);
  const finishedAfterRelease = writesDuring.filter((s) => s.status === 200);
  const failedWrites = writesDuring.filter((s) => s.status !== 200);
  const faultBodies = [
    ...new Set(failedWrites.map((s) => s.answer?.body.toString('utf8').slice(0, 300) ?? String(s.status))),
  ];
  const unclear = failedWrites.filter((s) => {
    if (s.answer === null) return true;
    const c = classify(s.answer);
    return (
      s.answer.status !== 500 ||
      !((c.shape === 'soap-fault' && c.faultCode === 'Server') || c.shape === 'text-error') ||
      !s.answer.body.toString('utf8').includes('The data store is unavailable.') ||
      leakIn(s.answer, [REPO_ROOT, os.tmpdir()]) !== null
    );
  });
  const slowWrites = writesDuring.filter((s) => s.ms > WRITE_DEADLINE_MS + WRITE_SLACK_MS);
  const lost = undelivered();
  process.stdout.write(
    [
      ...Object.entries(during).map(
        ([name, samples]) =>
          `sqlite lock: ${name} during the lock: ${samples.length} calls, ${samples.filter((s) => s.status !== 200).length} not 200, p99 ${p99(samples).toFixed(1)} ms, slowest ${Math.max(...samples.map((s) => s.ms)).toFixed(1)} ms`,
      ),
      `sqlite lock: writes started during the lock: ${writesDuring.length}: ${finishedAfterRelease.length} completed after the release (slowest ${Math.max(0, ...finishedAfterRelease.map((s) => s.ms)).toFixed(0)} ms), ${failedWrites.length} failed (slowest ${Math.max(0, ...failedWrites.map((s) => s.ms)).toFixed(0)} ms)`,
      `sqlite lock: failure answers seen: ${faultBodies.map((b) => JSON.stringify(b)).join(' | ')}`,
      `sqlite lock: load calls: ${[...load.outcomes].map(([k, n]) => `${k}: ${n}`).join(', ')}; acknowledged push ${load.ackedPushes.size}, SMS ${load.ackedSms.size}, probes ${acknowledgedProbes}; not in the store: push ${notStored.pushes.length}, SMS ${notStored.sms.length}; undelivered push ${lost.pushes.length}, SMS ${lost.sms.length}`,
      '',
    ].join('\n'),
  );

  expect(aliveThroughout).toBe(true);
  expect(service.alive()).toBe(true);
  expect(outsideRow).toBe(1);
  for (const [name, samples] of Object.entries(during)) {
    expect({ name, calls: samples.length > 10 * LOCK_SECONDS }).toEqual({ name, calls: true });
    expect({ name, failed: samples.filter((s) => s.status !== 200).length }).toEqual({ name, failed: 0 });
    expect({ name, p99: p99(samples) < P99_LIMIT_MS }).toEqual({ name, p99: true });
  }
  // The lock outlasts a write's deadline: the early writes failed, the late ones waited it out.
  expect(failedWrites.length).toBeGreaterThan(0);
  expect(getWrites.samples.filter((s) => startedDuring(s) && s.status === 500).length).toBeGreaterThan(0);
  expect(finishedAfterRelease.length).toBeGreaterThan(0);
  expect(finishedAfterRelease.every((s) => s.at + s.ms >= releasedAt)).toBe(true);
  expect(unclear.map((s) => s.answer?.body.toString('utf8') ?? s.status)).toEqual([]);
  expect(slowWrites.map((s) => s.ms)).toEqual([]);
  expect(load.outcomes.size).toBeLessThanOrEqual(2);
  expect([...load.outcomes.keys()].filter((k) => k !== '200' && k !== '500')).toEqual([]);
  expect(storedProbes).toBeGreaterThanOrEqual(acknowledgedProbes);
  expect(notStored).toEqual({ pushes: [], sms: [] });
  expect(lost).toEqual({ pushes: [], sms: [] });
});
