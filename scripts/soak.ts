// npm run soak: mixed load on every operation over every binding, and the
// documents, for SOAK_MINUTES (default 10), against `node dist/main.js` (with
// the flags `npm start` gives it) on a fresh SQLite store with its in-process
// worker delivering to the log providers. The service's RSS is sampled every
// SOAK_SAMPLE_SECONDS (default 5); the closing lines give start, end and peak
// RSS and the request counts (docs/chaos.md). Not part of CI: it takes minutes.
// `npm run bench` runs a short one for its memory figures (soak() below).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import {
  BINDINGS,
  checkPositive,
  openStore,
  pidOf,
  request as bindingRequest,
  root,
  rssKb,
  runMain,
  scaled,
  startChild,
  type BenchRequest,
  type Binding,
  type Listening,
  type Params,
} from './bench-support';

// A smoke run: 1.5 s of load, sampled every half second.
const MINUTES = scaled('SOAK_MINUTES', 10, 0.025);
const SAMPLE_SECONDS = scaled('SOAK_SAMPLE_SECONDS', 5, 0.5);
const CONNECTIONS = scaled('SOAK_CONNECTIONS', 8, 2);
const STUDENTS = scaled(null, 500, 20);
const SCHOOL = 'https://soak.school.example';

async function seed(dataDir: string): Promise<void> {
  const store = await openStore({ dataDir });
  const ids = Array.from({ length: STUDENTS }, (_, i) => String(7001 + i));
  await store.dataSet.writeDataSet({
    schools: [{ baseUrl: SCHOOL, name: 'Soak School' }],
    devices: ids.map((id) => ({
      id: `dev-${id}`,
      token: `fcm:soak-${id}`,
      platform: i(id) % 2 ? ('ios' as const) : ('android' as const),
    })),
    students: ids.map((id) => ({
      id,
      school: SCHOOL,
      fullName: i(id) % 3 === 0 ? `طالب ${id}` : `Student ${id}`,
      deviceId: `dev-${id}`,
      active: i(id) % 10 === 0 ? '0' : '1',
      classId: `C${i(id) % 20}`,
    })),
    notes: ids.flatMap((id) => [
      {
        id: `n-${id}-a`,
        studentId: id,
        type: 'audit',
        subjectId: 'MATH',
        classId: `C${i(id) % 20}`,
        text: 'Homework',
        date: '2026-10-01T08:00:00Z',
        badge: '1',
        state: 'unread',
      },
      {
        id: `n-${id}-b`,
        studentId: id,
        type: 'behaviour',
        subjectId: null,
        classId: `C${i(id) % 20}`,
        text: 'ممتاز',
        date: '2026-10-02T08:00:00Z',
        badge: null,
        state: 'unread',
      },
    ]),
    absences: ids.map((id) => ({
      id: `a-${id}`,
      studentId: id,
      date: '2026-10-05',
      type: 'full-day',
      reason: null,
      seen: false,
    })),
  });
  await store.lifecycle.close();
}

function i(id: string): number {
  return Number(id) - 7001;
}

function start(dataDir: string): Promise<Listening> {
  // A minimal environment (no inherited settings), with the flags `npm start` gives the service.
  return startChild(
    path.join(root, 'dist/main.js'),
    {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DEMO_DATA: 'false',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      // Every AuthCode call is a new number from one address: the abuse limits would refuse them.
      AUTH_CODE_LIMIT_PER_PHONE: 'off',
      AUTH_CODE_LIMIT_PER_CALLER: 'off',
      AUTH_CODE_LIMIT_GLOBAL: 'off',
    },
    {},
  );
}

/** The n-th call's parameters for each operation: varied students, numbers, types. */
const OPERATIONS: Array<[string, string, (n: number) => Params]> = [
  [
    'AuthCodeSending',
    'AuthCode',
    (n: number) => ({ code: String(100000 + (n % 900000)), phone: `094${String(n % 10_000_000).padStart(7, '0')}` }),
  ],
  ['GetStudentsAudit', 'GetStudentsAudtiNote', (n: number) => ({ SubjectID: 'MATH', Class_id: `C${n % 20}` })],
  [
    'ReadNoteFromApp',
    'UpdateNoteState',
    (n: number) => ({ STDid: String(7001 + (n % STUDENTS)), note_type: n % 2 ? 'audit' : 'behaviour' }),
  ],
  ['GetStudentsAbsence', 'GetStudentsAbcenceByID', (n: number) => ({ STDid: String(7001 + (n % STUDENTS)) })],
  [
    'NotificationNotes',
    'GetStudentSchool',
    (n: number) => ({ school_base_url: SCHOOL, show_active: n % 2 ? '1' : '0' }),
  ],
  [
    'NotificationNotes',
    'SendNotificationType',
    (n: number) => ({
      id: String(7001 + (n % STUDENTS)),
      baseUrlSchool: SCHOOL,
      TypeNotfication: n % 2 ? 'absence' : 'note',
    }),
  ],
  ['PushNotificationMobile', 'GetTokenDevice', (n: number) => ({ id: `dev-${7001 + (n % STUDENTS)}` })],
];

function request(endpoint: string, op: string, params: Params, binding: Binding): BenchRequest {
  // show_active is a char: its UTF-16 code in SOAP.
  const soapParams =
    'show_active' in params ? { ...params, show_active: String(params.show_active.charCodeAt(0)) } : params;
  return bindingRequest(endpoint, op, params, binding, soapParams);
}

const DOCUMENTS = [
  '/NotificationNotes.asmx?wsdl',
  '/AuthCodeSending.asmx?disco',
  '/PushNotificationMobile.asmx',
  '/GetStudentsAbsence.asmx?op=GetStudentsAbcenceByID',
  '/',
  '/healthz',
  '/readyz',
  '/metrics',
];

/** What a soak measured: the service's RSS (kB) over time, and the requests. */
export interface SoakResult {
  /** RSS once listening, before any request. */
  readonly idleKb: number;
  readonly endKb: number;
  readonly peak: { readonly at: number; readonly rss: number };
  /** Every sample, from the start of the load (ms, kB): growth across the soak reads off them. */
  readonly samples: ReadonlyArray<{ readonly at: number; readonly rss: number }>;
  readonly requests: number;
  readonly seconds: number;
  /** Answers that are neither a 200 nor one of ASMX's 500s for refused input. */
  readonly failures: number;
}

/**
 * Mixed load on a fresh service for `minutes`, its RSS sampled every
 * `sampleSeconds`; `progress` says how it goes (npm run soak prints each
 * sample; npm run bench only the result).
 */
export async function soak(
  minutes: number,
  sampleSeconds: number,
  progress: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<SoakResult> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-soak-'));
  await seed(dataDir);
  const service = await start(dataDir);
  const pid = pidOf(service.child);
  const pool = new Pool(`http://127.0.0.1:${service.port}`, { connections: CONNECTIONS, pipelining: 1 });
  const counts = new Map<string, number>();
  const statuses = new Map<string, number>();
  const add = (map: Map<string, number>, key: string): Map<string, number> => map.set(key, (map.get(key) ?? 0) + 1);
  let failures = 0;
  let slowest = 0;
  let n = 0;
  const startedAt = Date.now();
  const endAt = startedAt + minutes * 60_000;
  const samples = [{ at: 0, rss: rssKb(pid) }];
  const sampler = setInterval(() => {
    const rss = rssKb(pid);
    samples.push({ at: Date.now() - startedAt, rss });
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    progress(
      `soak: ${((Date.now() - startedAt) / 1000).toFixed(0)} s, RSS ${(rss / 1024).toFixed(1)} MB, ${total} requests`,
    );
  }, sampleSeconds * 1000);
  progress(
    `soak: ${minutes} min, ${CONNECTIONS} connections, service pid ${pid} on port ${service.port}, RSS at start ${(samples[0].rss / 1024).toFixed(1)} MB`,
  );

  const loop = async (): Promise<void> => {
    while (Date.now() < endAt) {
      const k = n++;
      let req: BenchRequest;
      let key: string;
      // One request in 15 is a document; the rest cycle through every operation and binding.
      if (k % 15 === 14) {
        const target = DOCUMENTS[k % DOCUMENTS.length];
        req = { method: 'GET', path: target, headers: {} };
        key = `GET ${target}`;
      } else {
        const [endpoint, op, params] = OPERATIONS[k % OPERATIONS.length];
        const binding = BINDINGS[Math.floor(k / OPERATIONS.length) % BINDINGS.length];
        req = request(endpoint, op, params(k), binding);
        key = `${op} ${binding}`;
      }
      const t = performance.now();
      try {
        const res = await pool.request(req);
        await res.body.dump({ limit: Infinity });
        add(statuses, String(res.statusCode));
        if (res.statusCode >= 500 && !(key.startsWith('GET /readyz') && res.statusCode === 503)) failures++;
      } catch {
        add(statuses, 'error');
        failures++;
      }
      slowest = Math.max(slowest, performance.now() - t);
      add(counts, key);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
  clearInterval(sampler);
  samples.push({ at: Date.now() - startedAt, rss: rssKb(pid) });
  await pool.close();
  service.child.kill('SIGTERM');
  await new Promise((resolve) => service.child.once('exit', resolve));
  rmSync(dataDir, { recursive: true, force: true });

  const total = checkPositive(
    'requests',
    [...counts.values()].reduce((a, b) => a + b, 0),
  );
  const peak = samples.reduce((a, b) => (b.rss > a.rss ? b : a));
  checkPositive('peak RSS kB', peak.rss);
  const seconds = (Date.now() - startedAt) / 1000;
  progress(
    [
      '',
      `soak: requests by operation and binding: ${[...counts]
        .sort()
        .map(([k, c]) => `${k}: ${c}`)
        .join(', ')}`,
      `soak: statuses: ${[...statuses]
        .sort()
        .map(([k, c]) => `${k}: ${c}`)
        .join(', ')}; unexpected failures ${failures}; slowest ${slowest.toFixed(0)} ms`,
      `soak: ${total} requests in ${seconds.toFixed(0)} s (${(total / seconds).toFixed(0)}/s), ${samples.length} RSS samples`,
      `soak: RSS start ${mb(samples[0].rss)}, end ${mb(samples[samples.length - 1].rss)}, peak ${mb(peak.rss)} at ${(peak.at / 1000).toFixed(0)} s`,
      '',
    ].join('\n'),
  );
  return {
    idleKb: samples[0].rss,
    endKb: samples[samples.length - 1].rss,
    peak,
    samples,
    requests: total,
    seconds,
    failures,
  };
}

/** kB as MB, one decimal. */
export const mb = (kb: number): string => `${(kb / 1024).toFixed(1)} MB`;

if (require.main === module)
  runMain(async () => {
    const result = await soak(MINUTES, SAMPLE_SECONDS);
    // Statuses 200 and ASMX's 500s for refused input are both expected; "failures" counts what is not.
    process.exitCode = result.failures === 0 ? 0 : 1;
  });
