// Roster uploads of the worst shapes (docs/chaos.md): an operator uploads
// files up to the console's 32 MiB cap through the real console of the built
// service, each shaped to cost the most per byte, and its dry run is waited
// for while the process's resident memory is sampled and /healthz is probed.
// An 8 MiB CSV of one-cell rows once grew the process until "heap out of
// memory" killed it, and 2 MiB held 2.66 GB and answered nothing for 40 s.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT, startService, type ServiceProcess } from './support/service-process';
import { hostSlowness, quantile, rssMb } from './support/under-attack';

const CAP = 32 * 1024 * 1024;
/**
 * The goals: the process grows by less than this while it checks a file (the
 * failure this guards against grew by gigabytes). The check of 200,000 valid
 * rows holds them all, and its peak moves with when the collector runs: on an
 * idle machine, same build, +130 to +210 MB over runs, the in-memory uploads
 * of before +142 to +175 (docs/chaos.md): 200 was at the edge of both.
 */
const GROWTH_BOUND_MB = 256;
/**
 * ...and /healthz answers within this at the 99th percentile meanwhile, over all the uploads' probes: 100 ms
 * on this machine kind at its usual speed, scaled by the host's speed measured in the same run
 * (`hostSlowness` in support/under-attack.ts, docs/chaos.md#roster-uploads-of-the-worst-shapes): the same build's p99 went from 40 ms to
 * 110-141 ms in an hour when the host ran every process, node:http's own answers too, 2.6-2.8 times slower.
 */
const HEALTH_P99_GOAL_MS = 100;
const SLOWNESS = hostSlowness();
const HEALTH_P99_BOUND_MS = HEALTH_P99_GOAL_MS * SLOWNESS;
/**
 * No single probe may wait longer than this: generous, as the machine is
 * shared, but a check that held the thread (as the 40 s one did) fails it.
 */
const HEALTH_MAX_BOUND_MS = 1000;
const PASSWORD = 'chaos import password 0123456789';

let dir: string;
let service: ServiceProcess;
let cookie: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sns-chaos-import-'));
  const env = { PATH: process.env.PATH ?? '', DATA_DIR: dir, DEMO_DATA: 'false', LOG_LEVEL: 'warn' };
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'dist/cli/operator.js'), 'add', 'olga', '--role', 'operator'], {
    env,
    input: `${PASSWORD}\n${PASSWORD}\n`,
  });
  // WORKER=true: the process that runs the delivery worker runs the import jobs too (docs/console.md#importing-a-roster),
  // so the check runs in the process whose memory and /healthz are measured. Its outbox is empty; nothing is sent.
  service = await startService({ DATA_DIR: dir, WORKER: 'true' }, ['--max-semi-space-size=32']);
  cookie = await signIn();
});
afterAll(async () => {
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

function send(method: string, url: string, headers: Record<string, string>, body?: Buffer | string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: service.port, path: url, method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const csrfOf = (page: string): string => /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';

async function signIn(): Promise<string> {
  const form = await send('GET', '/console/sign-in', {});
  const first = String(form.headers['set-cookie'] ?? '').split(';')[0] ?? '';
  const answer = await send(
    'POST',
    '/console/sign-in',
    { 'content-type': 'application/x-www-form-urlencoded', cookie: first },
    new URLSearchParams({ csrf: csrfOf(form.body), name: 'olga', password: PASSWORD }).toString(),
  );
  const session = ((answer.headers['set-cookie'] ?? []) as string[]).find((c) => c.startsWith('sns_console_session='));
  if (answer.status !== 303 || session === undefined) throw new Error(`sign-in answered ${answer.status}`);
  return session.split(';')[0] ?? '';
}

/** The upload form of `data` as `name`: built before the measurement, so that the test's own copying is not timed. */
async function uploadForm(name: string, data: Buffer): Promise<{ body: Buffer; boundary: string }> {
  const csrf = csrfOf((await send('GET', '/console/import', { cookie })).body);
  const boundary = `----chaos${Date.now()}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n${csrf}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="collection"\r\n\r\n\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, boundary };
}

/** Posts the form and returns the dry run's page once the check has ended. */
async function uploadAndCheck({ body, boundary }: { body: Buffer; boundary: string }): Promise<string> {
  const posted = await send(
    'POST',
    '/console/import',
    { cookie, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(body.length) },
    body,
  );
  if (posted.status !== 303) throw new Error(`the upload answered ${posted.status}: ${posted.body.slice(0, 300)}`);
  const location = String(posted.headers.location);
  for (;;) {
    const page = await send('GET', location, { cookie });
    if (!page.body.includes('http-equiv="refresh"')) return page.body;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// The probe runs in a process of its own: this one copies 32 MiB files about,
// and its own pauses would be counted as the service's.
const PROBE = `
const http = require('node:http');
const ms = [];
let failed = 0;
let running = true;
process.stdin.on('data', () => (running = false));
(async () => {
  while (running) {
    const started = performance.now();
    const status = await new Promise((resolve) => {
      const req = http.get({ host: '127.0.0.1', port: Number(process.argv[1]), path: '/healthz', agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      });
      req.setTimeout(5000, () => req.destroy());
      req.on('error', () => resolve(0));
    });
    if (status === 200) ms.push(performance.now() - started);
    else failed++;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  process.stdout.write(JSON.stringify({ ms, failed }));
})();
`;

interface ProbeResult {
  readonly tries: number;
  readonly failed: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly ms: readonly number[];
}

function probeFromOutside(port: number): { stop(): Promise<ProbeResult> } {
  const child = spawn(process.execPath, ['-e', PROBE, String(port)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (out += chunk));
  const ended = new Promise((resolve) => child.once('exit', resolve));
  return {
    async stop() {
      child.stdin.end('stop');
      await ended;
      const { ms, failed } = JSON.parse(out) as { ms: number[]; failed: number };
      const sorted = [...ms].sort((a, b) => a - b);
      return {
        tries: ms.length + failed,
        failed,
        p50: quantile(sorted, 0.5),
        p99: quantile(sorted, 0.99),
        max: sorted.at(-1) ?? NaN,
        ms,
      };
    },
  };
}

/** Bytes up to the cap of `head` followed by `line` as often as it fits. */
function repeated(head: string, line: string, total = CAP - 1024): Buffer {
  const times = Math.floor((total - head.length) / line.length);
  return Buffer.from(head + line.repeat(times));
}

// Each shape fills the cap: its name, the file's name (which tells the collection of a CSV file) and its bytes.
const SHAPES: readonly [string, string, () => Buffer, RegExp][] = [
  ['one-cell rows', 'roster.csv', () => repeated('id,token\n', 'x\n'), /holds more than 200,000 rows/],
  [
    'valid rows at the row limit, as long as the cap allows',
    'schools.csv',
    () => {
      // 200,000 rows of about 167 bytes: the most checked rows a 32 MiB file can hold at the limit.
      const pad = 'n'.repeat(Math.floor((CAP - 4096) / 200_000) - 32);
      const lines = Array.from({ length: 200_000 }, (_, i) => `https://s${i}.example,${pad}${i}\n`);
      return Buffer.from(`baseUrl,name\n${lines.join('')}`);
    },
    /<td data-label="Added" class="number">200,000<\/td>/,
  ],
  [
    'very wide rows',
    'schools.csv',
    () => repeated('baseUrl,name\n', `${','.repeat(64 * 1024)}\n`),
    /has more than 256 fields/,
  ],
  ['one huge cell', 'schools.csv', () => repeated('baseUrl,name\n"', 'y'), /not valid CSV: (<bdi>)?Quote Not Closed/],
  [
    'a header of many columns',
    'schools.csv',
    () => repeated('baseUrl,name', ',c'),
    /header row (<bdi>)?has more than 256 fields/,
  ],
  [
    'JSON of millions of tiny objects',
    'roster.json',
    () => repeated('{"students":[{}', ',{}'),
    /more than 200,000 rows/,
  ],
  ['JSON nested deep', 'roster.json', () => repeated('{"schools":', '['), /nests deeper than 32 levels/],
];

const figures: string[] = [];
const allLatencies: number[] = [];
afterAll(() => process.stdout.write(`roster uploads of the worst shapes (32 MiB each):\n${figures.join('\n')}\n`));

test.each(SHAPES)(
  'a 32 MiB upload of %s is checked in bounded memory while /healthz answers',
  async (shape, name, make, expected) => {
    const pid = service.child.pid as number;
    const data = make();
    expect(data.length).toBeLessThanOrEqual(CAP);
    const form = await uploadForm(name, data);
    const before = rssMb(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
    const probe = probeFromOutside(service.port);
    // Let the probe's process start before the upload.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    const page = await uploadAndCheck(form);
    const seconds = (Date.now() - started) / 1000;
    const health = await probe.stop();
    clearInterval(sampler);
    peak = Math.max(peak, rssMb(pid));
    figures.push(
      `  ${shape}: checked in ${seconds.toFixed(1)} s; RSS ${before.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB ` +
        `(+${(peak - before).toFixed(0)} MB); /healthz ${health.tries} tries, p50 ${health.p50.toFixed(1)} ms, ` +
        `p99 ${health.p99.toFixed(1)} ms, max ${health.max.toFixed(1)} ms, ${health.failed} failed`,
    );
    process.stderr.write(`${figures.at(-1) ?? ''}\n`);
    expect(page).toMatch(expected);
    expect(service.alive()).toBe(true);
    expect(health.failed).toBe(0);
    expect(health.max).toBeLessThan(HEALTH_MAX_BOUND_MS);
    allLatencies.push(...health.ms);
    expect(peak - before).toBeLessThan(GROWTH_BOUND_MB);
  },
  180_000,
);

test('across the uploads, /healthz answers within the goal at the 99th percentile', () => {
  const sorted = [...allLatencies].sort((a, b) => a - b);
  const p99 = quantile(sorted, 0.99);
  figures.push(
    `  all uploads: /healthz ${sorted.length} tries, p50 ${quantile(sorted, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`,
  );
  figures.push(
    `  the host ran ${SLOWNESS.toFixed(2)} times slower than usual: p99 bound ${HEALTH_P99_BOUND_MS.toFixed(0)} ms`,
  );
  expect(sorted.length).toBeGreaterThan(100);
  expect(p99).toBeLessThan(HEALTH_P99_BOUND_MS);
});
