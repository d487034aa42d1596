// npm run bench: the service against a baseline measured in the same run.
//
// The service runs from dist/ on a fresh SQLite store holding one generated
// school of 5,000 students. The baseline is a bare Express route answering
// fixed bytes identical to the service's answer for each case, with the same
// headers. Both run as child processes; autocannon drives them from here.
// Ratios (service / baseline) are what to read: absolute figures move with
// the machine.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { benchImport } from './bench-import.mjs';
import { BINDINGS, cpuMs, NODE_FLAGS, request, root, rssKb, startChild } from './bench-support.mjs';
// Smoke mode (BENCH_SMOKE=1): the sizes below, scaled; the results, checked.
import { checkPositive, LOAD_OPTIONS, scaled, settleLoad, SMOKE } from './bench-support.mjs';

const require = createRequire(import.meta.url);
const autocannon = require('autocannon');
const { openStore } = require(path.join(root, 'dist/store'));
// The baseline runs with the service's Node flags too (startChild), so that the ratio compares code, not flags.

const DURATION = scaled('BENCH_DURATION', 10, 0.1);
// BENCH_ONLY=token|list|import runs one part (all three by default).
const ONLY = process.env.BENCH_ONLY ?? '';
const runs = (part) => ONLY === '' || ONLY === part;
// BENCH_POLICY=1: the service runs behind an access policy (docs/security.md)
// that wants a network and Basic credentials for every operation, and every
// request carries them: what a locked-down service costs per call.
const POLICY = process.env.BENCH_POLICY === '1';
// BENCH_OTEL=1: the service sends its traces (docs/operating.md#traces) to a
// local OTLP receiver (scripts/bench-otlp-receiver.mjs): what tracing costs.
const OTEL = process.env.BENCH_OTEL === '1';
const BENCH_USER = 'bench';
const BENCH_PASSWORD = 'bench password 0123';
const CONNECTIONS = 10;
const STUDENTS = scaled(null, 5000, 50);
const SCHOOL = 'https://bench.school.example';

/** One request per binding, as real clients send them. */
function requests(endpoint, op, params, soapParams = params) {
  return Object.fromEntries(BINDINGS.map((binding) => [binding, request(endpoint, op, params, binding, soapParams)]));
}

async function seed(dataDir) {
  const store = await openStore({ dataDir });
  const students = [];
  const devices = [{ id: 'dev-bench', token: 'fcm:bench-token-0123456789abcdef', platform: 'android' }];
  for (let i = 0; i < STUDENTS; i++) {
    const id = String(100000 + i);
    const name = i % 3 === 0 ? `طالب رقم ${i}` : i % 100 === 7 ? `O'Neil & <Sons> ${i}` : `Student ${i}`;
    devices.push({ id: `dev-${id}`, token: `fcm:${id}`, platform: 'ios' });
    students.push({ id, school: SCHOOL, fullName: name, deviceId: `dev-${id}`, active: '1', classId: `C${i % 30}` });
  }
  await store.dataSet.writeDataSet({ schools: [{ baseUrl: SCHOOL, name: 'Bench School' }], devices, students });
  await store.lifecycle.close();
}

async function fetchAnswer(port, req) {
  const res = await fetch(`http://127.0.0.1:${port}${req.path}`, {
    method: req.method,
    headers: req.headers,
    body: req.body,
  });
  const headers = {};
  for (const name of ['content-type', 'cache-control'])
    if (res.headers.get(name) !== null) headers[name] = res.headers.get(name);
  return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()).toString('base64') };
}

function load(port, req, connections = CONNECTIONS) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `http://127.0.0.1:${port}${req.path}`,
        method: req.method,
        headers: req.headers,
        body: req.body,
        connections,
        duration: DURATION,
        ...LOAD_OPTIONS,
      },
      // A load that got no answer would print a ratio of NaN or Infinity.
      settleLoad(resolve, reject, checkLoad),
    );
  });
}

/** The receiver's count after `waitMs`, or as soon as it holds a span within 3 s. */
async function spansReceived(port, waitMs) {
  await new Promise((resolve) => setTimeout(resolve, waitMs));
  const deadline = Date.now() + 3000;
  for (;;) {
    const count = await (await fetch(`http://127.0.0.1:${port}/count`)).json();
    if (count.spans > 0 || Date.now() > deadline) return count;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function checkLoad(result) {
  checkPositive('requests answered', result.requests.total);
  checkPositive('requests per sample', result.requests.average);
  return result;
}

const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-bench-'));
  const children = [];
  try {
    process.stdout.write(`seeding ${STUDENTS} students... `);
    await seed(dataDir);
    console.log('done');
    console.log(`service and baseline run as \`npm start\` runs Node: ${NODE_FLAGS.join(' ') || '(no flags)'}`);

    const env = {
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DEMO_DATA: 'false',
      LOG_LEVEL: 'info',
      DATABASE_URL: '',
    };
    if (POLICY) {
      const hash = require('bcryptjs').hashSync(BENCH_PASSWORD, 10);
      env.ACCESS_POLICY = path.join(dataDir, 'policy.yaml');
      writeFileSync(
        env.ACCESS_POLICY,
        `users:\n  ${BENCH_USER}: "${hash}"\ndefault:\n  allow: ["127.0.0.0/8", "::1/128"]\n  auth: basic\n`,
      );
      console.log('behind an access policy: network and Basic credentials for every operation');
    }
    let receiver = null;
    if (OTEL) {
      receiver = await startChild(path.join(root, 'scripts/bench-otlp-receiver.mjs'), {});
      children.push(receiver.child);
      env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${receiver.port}`;
      console.log('with traces: every call and statement in a span, sent to a local OTLP receiver');
    }
    const service = await startChild(path.join(root, 'dist/main.js'), env);
    children.push(service.child);

    const withCredentials = (cases) => {
      if (!POLICY) return cases;
      const authorization = `Basic ${Buffer.from(`${BENCH_USER}:${BENCH_PASSWORD}`).toString('base64')}`;
      return Object.fromEntries(
        Object.entries(cases).map(([name, req]) => [name, { ...req, headers: { ...req.headers, authorization } }]),
      );
    };
    const token = withCredentials(requests('PushNotificationMobile', 'GetTokenDevice', { id: 'dev-bench' }));
    const list = withCredentials(
      requests(
        'NotificationNotes',
        'GetStudentSchool',
        { school_base_url: SCHOOL, show_active: '1' },
        { school_base_url: SCHOOL, show_active: '49' },
      ),
    );
    const tokenCases = Object.entries(token);
    const listCases = [
      ['SOAP 1.1', list['SOAP 1.1']],
      ['HTTP GET', list['HTTP GET']],
    ];

    // The baseline answers each case's exact bytes, captured from the service.
    const answers = {};
    for (const [name, req] of [
      ...tokenCases.map(([b, r]) => [`token ${b}`, r]),
      ...listCases.map(([b, r]) => [`list ${b}`, r]),
    ]) {
      const answer = await fetchAnswer(service.port, req);
      if (answer.status !== 200) throw new Error(`${name}: the service answered ${answer.status}`);
      answers[`${req.method} ${req.path}`] = answer;
    }
    const answersFile = path.join(dataDir, 'answers.json');
    writeFileSync(answersFile, JSON.stringify(answers));
    const baseline = await startChild(path.join(root, 'scripts/bench-baseline.mjs'), { ANSWERS: answersFile });
    children.push(baseline.child);

    if (runs('token')) await benchToken(service, baseline, tokenCases);
    if (runs('list')) await benchList(service, baseline, listCases, list, answers);
    console.log(
      '\nTargets: every GetTokenDevice ratio >= 0.6; GetStudentSchool median <= 60 ms (1 connection), peak RSS growth < 50 MB.',
    );
    if (receiver !== null) {
      // The exporter sends every 2 s: what was measured has reached the receiver by then.
      // A smoke run only wants some spans, and waits for the first export at most that long.
      const count = await spansReceived(receiver.port, SMOKE ? 0 : 3000);
      console.log(`\nThe OTLP receiver took ${fmt(count.spans)} spans in ${fmt(count.exports)} exports.`);
      checkPositive('spans received', count.spans);
    }
    if (runs('import')) await benchImport();
  } finally {
    for (const child of children) child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function benchToken(service, baseline, tokenCases) {
  console.log(`\nGetTokenDevice, ${CONNECTIONS} connections, ${DURATION} s per case`);
  // CPU per call: what the service spends on one, which moves less than req/s on a machine shared with other work.
  console.log('| binding | service req/s | p50 ms | p99 ms | CPU µs/call | baseline req/s | p50 ms | p99 ms | ratio |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const [binding, req] of tokenCases) {
    await load(service.port, req, CONNECTIONS); // warm-up (JIT, caches), not counted
    const cpuBefore = cpuMs(service.child.pid);
    const s = await load(service.port, req);
    const cpuPerCall = cpuBefore === null ? null : ((cpuMs(service.child.pid) - cpuBefore) * 1000) / s.requests.total;
    const b = await load(baseline.port, req);
    if (s.non2xx > 0 || s.errors > 0) throw new Error(`${binding}: ${s.non2xx} non-2xx answers, ${s.errors} errors`);
    const ratio = s.requests.average / b.requests.average;
    console.log(
      `| ${binding} | ${fmt(s.requests.average)} | ${s.latency.p50} | ${s.latency.p99} | ${cpuPerCall === null ? 'n/a' : fmt(cpuPerCall)} | ${fmt(b.requests.average)} | ${b.latency.p50} | ${b.latency.p99} | ${fmt(ratio, 2)} ${ratio >= 0.6 ? '' : '(below 0.6)'} |`,
    );
  }
}

async function benchList(service, baseline, listCases, list, answers) {
  console.log(
    `\nGetStudentSchool, all ${STUDENTS} students (${fmt(Buffer.from(answers[`GET ${list['HTTP GET'].path}`].body, 'base64').length)} bytes over GET)`,
  );
  console.log('| binding | connections | median ms | p99 ms | req/s | baseline median ms | peak RSS growth MB |');
  console.log('|---|---|---|---|---|---|---|');
  for (const [binding, req] of listCases) {
    for (const connections of [1, CONNECTIONS]) {
      await load(service.port, req, connections);
      const before = rssKb(service.child.pid, 'VmRSS');
      writeFileSync(`/proc/${service.child.pid}/clear_refs`, '5'); // resets the peak (VmHWM)
      const s = await load(service.port, req, connections);
      const peak = rssKb(service.child.pid, 'VmHWM');
      const b = await load(baseline.port, req, connections);
      if (s.non2xx > 0 || s.errors > 0) throw new Error(`${binding}: ${s.non2xx} non-2xx answers, ${s.errors} errors`);
      console.log(
        `| ${binding} | ${connections} | ${s.latency.p50} | ${s.latency.p99} | ${fmt(s.requests.average)} | ${b.latency.p50} | ${fmt(Math.max(0, peak - before) / 1024, 1)} |`,
      );
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
