// npm run bench: the service against baselines measured in the same run.
//
// The service runs from dist/ on a fresh SQLite store holding one generated
// school of 5,000 students and one of 500. The baselines answer fixed bytes
// identical to the service's answer for each case, with the same headers: a
// bare Express route (scripts/bench-baseline.mjs), and node:http's own
// listener (the same script, BASELINE=node-http); node-soap's own server on
// the same WSDL (scripts/bench-node-soap.mjs) is the framework yardstick for
// SOAP 1.1. All run as child processes; autocannon drives them from here.
// Ratios (service / baseline) are what to read: absolute figures move with
// the machine. CPU per call is read from /proc, which holds up better than
// requests a second when other work shares the machine (docs/benchmark.md).
import { execFileSync } from 'node:child_process';
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
// BENCH_ONLY=token|list|calls|import runs one part (all four by default).
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
// The heavy operations' school: 500 students, the size of a real one, and the audit notes of one class.
const SMALL_SCHOOL = 'https://small.bench.school.example';
const SMALL_STUDENTS = scaled(null, 500, 20);
const AUDIT_NOTES = 20;
const TOKEN = 'fcm:bench-token-0123456789abcdef';

/** One request per binding, as real clients send them. */
function requests(endpoint, op, params, soapParams = params) {
  return Object.fromEntries(BINDINGS.map((binding) => [binding, request(endpoint, op, params, binding, soapParams)]));
}

async function seed(dataDir) {
  const store = await openStore({ dataDir });
  const students = [];
  const devices = [{ id: 'dev-bench', token: TOKEN, platform: 'android' }];
  const notes = [];
  for (let i = 0; i < STUDENTS + SMALL_STUDENTS; i++) {
    const id = String(100000 + i);
    const name = i % 3 === 0 ? `طالب رقم ${i}` : i % 100 === 7 ? `O'Neil & <Sons> ${i}` : `Student ${i}`;
    const school = i < STUDENTS ? SCHOOL : SMALL_SCHOOL;
    devices.push({ id: `dev-${id}`, token: `fcm:${id}`, platform: 'ios' });
    students.push({ id, school, fullName: name, deviceId: `dev-${id}`, active: '1', classId: `C${i % 30}` });
  }
  for (let i = 0; i < AUDIT_NOTES; i++) {
    notes.push({
      id: `note-${i}`,
      studentId: String(100000 + STUDENTS + i),
      type: 'audit',
      subjectId: 'MATH',
      classId: 'C1',
      text: i % 2 === 0 ? `لم يُسلّم الواجب المنزلي ${i}` : `Forgot the homework <${i}>`,
      date: `2025-10-${String(1 + i).padStart(2, '0')}T08:15:00Z`,
      badge: '1',
      state: 'unread',
    });
  }
  await store.dataSet.writeDataSet({
    schools: [
      { baseUrl: SCHOOL, name: 'Bench School' },
      { baseUrl: SMALL_SCHOOL, name: 'Small Bench School' },
    ],
    devices,
    students,
    notes,
  });
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
    const small = { school_base_url: SMALL_SCHOOL, show_active: '1' };
    const audit = { SubjectID: 'MATH', Class_id: 'C1' };
    const send = { id: String(100000 + STUDENTS + 1), baseUrlSchool: SMALL_SCHOOL, TypeNotfication: 'absence' };
    const heavyCases = Object.entries(
      withCredentials({
        'GetStudentSchool 500, SOAP 1.1': request('NotificationNotes', 'GetStudentSchool', small, 'SOAP 1.1', {
          ...small,
          show_active: '49',
        }),
        'GetStudentSchool 500, HTTP GET': request('NotificationNotes', 'GetStudentSchool', small, 'HTTP GET'),
        'SendNotificationType, SOAP 1.1': request('NotificationNotes', 'SendNotificationType', send, 'SOAP 1.1'),
        'SendNotificationType, HTTP POST': request('NotificationNotes', 'SendNotificationType', send, 'HTTP POST'),
        'GetStudentsAudtiNote, SOAP 1.1': request('GetStudentsAudit', 'GetStudentsAudtiNote', audit, 'SOAP 1.1'),
        'GetStudentsAudtiNote, HTTP GET': request('GetStudentsAudit', 'GetStudentsAudtiNote', audit, 'HTTP GET'),
      }),
    );
    const listCases = [
      ['SOAP 1.1', list['SOAP 1.1']],
      ['HTTP GET', list['HTTP GET']],
    ];

    // The baseline answers each case's exact bytes, captured from the service.
    const answers = {};
    for (const [name, req] of [
      ...tokenCases.map(([b, r]) => [`token ${b}`, r]),
      ...listCases.map(([b, r]) => [`list ${b}`, r]),
      ...heavyCases,
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
    if (runs('calls')) {
      const nodeHttp = await startChild(path.join(root, 'scripts/bench-baseline.mjs'), {
        ANSWERS: answersFile,
        BASELINE: 'node-http',
      });
      children.push(nodeHttp.child);
      const nodeSoap = await startChild(path.join(root, 'scripts/bench-node-soap.mjs'), { SOAP_TOKEN: TOKEN });
      children.push(nodeSoap.child);
      await benchCalls(service, nodeHttp, nodeSoap, [
        ...tokenCases.map(([binding, req]) => [`GetTokenDevice, ${binding}`, req]),
        ...heavyCases,
      ]);
    }
    console.log(
      '\nTargets: every GetTokenDevice ratio >= 0.6; GetStudentSchool median <= 60 ms (1 connection), peak RSS growth < 50 MB;',
    );
    console.log('to node:http: SOAP 1.1 and 1.2 >= 0.6, HTTP GET and POST >= 0.7; SOAP 1.1 >= 1.5 times node-soap.');
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

/**
 * Each case against node:http answering the same bytes, GetTokenDevice over
 * SOAP 1.1 also against node-soap's own server, in alternating order; the
 * CPU per call of each process from /proc. With BENCH_PIN=1 (and `taskset`)
 * the load generator (this process) runs on the first core and the servers
 * on the second, so that they do not take turns on one; on a machine shared
 * with other work that cost the service more calls a second than the
 * baselines (all of its threads, the collector's too, share the one core).
 */
async function benchCalls(service, nodeHttp, nodeSoap, cases) {
  const pinned = process.env.BENCH_PIN === '1' && pinCores([service, nodeHttp, nodeSoap]);
  console.log(
    `\nEach call against node:http answering the same bytes, ${CONNECTIONS} connections, ${DURATION} s per case${pinned ? ', load on core 0 and servers on core 1' : ''}`,
  );
  console.log(
    '| case | service req/s | CPU µs/call | node:http req/s | CPU µs/call | ratio | node-soap req/s | ratio |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [name, req] of cases) {
    const soap = name === 'GetTokenDevice, SOAP 1.1' ? nodeSoap : null;
    await load(service.port, req); // warm-up (JIT, caches), not counted
    await load(nodeHttp.port, req);
    if (soap !== null) await load(soap.port, req);
    const s = await measured(service, req);
    const h = await measured(nodeHttp, req);
    const k = soap === null ? null : await measured(soap, req);
    const ratio = s.rate / h.rate;
    const soapRatio = k === null ? null : s.rate / k.rate;
    console.log(
      `| ${name} | ${fmt(s.rate)} | ${fmtCpu(s.cpu)} | ${fmt(h.rate)} | ${fmtCpu(h.cpu)} | ${fmt(ratio, 2)} | ${k === null ? '' : fmt(k.rate)} | ${soapRatio === null ? '' : fmt(soapRatio, 2)} |`,
    );
  }
  console.log(
    `load average at the end: ${os
      .loadavg()
      .map((n) => fmt(n, 2))
      .join(', ')}`,
  );
  // What runs next (the import's commands) starts from this process: give it every core back.
  if (pinned)
    execFileSync('taskset', ['-a', '-p', '-c', `0-${os.cpus().length - 1}`, String(process.pid)], { stdio: 'ignore' });
}

const fmtCpu = (cpu) => (cpu === null ? 'n/a' : fmt(cpu));

/** Requests a second and CPU µs per call of one server under the case's load. */
async function measured(server, req) {
  const before = cpuMs(server.child.pid);
  const result = await load(server.port, req);
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${req.method} ${req.path}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  const cpu = before === null ? null : ((cpuMs(server.child.pid) - before) * 1000) / result.requests.total;
  return { rate: result.requests.average, cpu };
}

/** This process on the first core, the servers (every thread) on the second; false where taskset cannot. */
function pinCores(servers) {
  if (os.availableParallelism() < 2) return false;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
    for (const server of servers)
      execFileSync('taskset', ['-a', '-p', '-c', '1', String(server.child.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
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
