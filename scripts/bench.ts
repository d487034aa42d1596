// npm run bench: the service against baselines measured in the same run.
//
// The service runs from dist/ on a fresh SQLite store holding one generated
// school of 5,000 students and one of 500. The baselines answer fixed bytes
// identical to the service's answer for each case, with the same headers: a
// bare Express route (scripts/bench-baseline.ts), and node:http's own
// listener (the same script, BASELINE=node-http); node-soap's own server on
// the same WSDLs (scripts/bench-node-soap.ts), answering from memory, is the
// framework yardstick for SOAP 1.1. All run as child processes; autocannon drives them from here.
// Ratios (service / baseline) are what to read: absolute figures move with
// the machine. CPU per call is read from /proc, which holds up better than
// requests a second when other work shares the machine (docs/benchmark.md).
// Memory: the service's RSS at idle and after a mixed load (scripts/soak.ts,
// BENCH_SOAK_MINUTES, 0.5 by default), and its peak growth while answering
// GetStudentSchool for the 5,000-student school.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import type { CapturedAnswer } from './bench-baseline';
import type { StudentInfo } from './bench-node-soap';
import { benchImport } from './bench-import';
import type { SpanCount } from './bench-otlp-receiver';
import {
  BINDINGS,
  checkAnswered,
  checkPositive,
  cpuMs,
  cpuPerCall,
  fmt,
  loadAverage,
  NODE_FLAGS,
  openStore,
  pidOf,
  request,
  root,
  rssKb,
  runLoad,
  runMain,
  scaled,
  SMOKE,
  startChild,
  type BenchRequest,
  type Binding,
  type Listening,
  type LoadResult,
  type Params,
} from './bench-support';
import type { DataSet } from '../src/store';
import { mb, soak } from './soak';
import { answerKey, fetchAnswer } from './bench-answer-key';

// The baseline runs with the service's Node flags too (startChild), so that the ratio compares code, not flags.

const DURATION = scaled('BENCH_DURATION', 10, 0.1);
// BENCH_ONLY=token|list|calls|memory|import runs one part (all five by default).
const ONLY = process.env.BENCH_ONLY ?? '';
const runs = (part: string): boolean => ONLY === '' || ONLY === part;
// BENCH_POLICY=1: the service runs behind an access policy (docs/security.md)
// that wants a network and Basic credentials for every operation, and every
// request carries them: what a locked-down service costs per call.
const POLICY = process.env.BENCH_POLICY === '1';
// BENCH_OTEL=1: the service sends its traces (docs/operating.md#traces) to a
// local OTLP receiver (scripts/bench-otlp-receiver.ts): what tracing costs.
const OTEL = process.env.BENCH_OTEL === '1';
// The mixed load after which the service's RSS is read: short by default, BENCH_SOAK_MINUTES=10 for the 10-minute one.
const SOAK_MINUTES = scaled('BENCH_SOAK_MINUTES', 0.5, 0.025);
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

type Cases = Array<[string, BenchRequest]>;

/** One request per binding, as real clients send them. */
function requests(endpoint: string, op: string, params: Params, soapParams = params): Record<Binding, BenchRequest> {
  return Object.fromEntries(
    BINDINGS.map((binding) => [binding, request(endpoint, op, params, binding, soapParams)]),
  ) as Record<Binding, BenchRequest>;
}

/** Seeds the store; resolves with the small school's students as node-soap's GetStudentSchool lists them. */
async function seed(dataDir: string): Promise<StudentInfo[]> {
  const store = await openStore({ dataDir });
  const students: NonNullable<DataSet['students']>[number][] = [];
  const devices: NonNullable<DataSet['devices']>[number][] = [{ id: 'dev-bench', token: TOKEN, platform: 'android' }];
  const notes: NonNullable<DataSet['notes']>[number][] = [];
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
  return students
    .filter((student) => student.school === SMALL_SCHOOL)
    .map((student) => ({
      id_student: student.id,
      fullName: student.fullName,
      id_device: student.deviceId ?? '',
      ShowActive: '1',
    }));
}

const load = (port: number, req: BenchRequest, connections = CONNECTIONS): Promise<LoadResult> =>
  runLoad(port, req, { connections, duration: DURATION });

/** The receiver's count after `waitMs`, or as soon as it holds a span within 3 s. */
async function spansReceived(port: number, waitMs: number): Promise<SpanCount> {
  await new Promise((resolve) => setTimeout(resolve, waitMs));
  const deadline = Date.now() + 3000;
  for (;;) {
    const count = (await (await fetch(`http://127.0.0.1:${port}/count`)).json()) as SpanCount;
    if (count.spans > 0 || Date.now() > deadline) return count;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function main(): Promise<void> {
  // What else the machine is doing says how far to trust the rates below.
  console.log(`load average before the run: ${loadAverage()}`);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-bench-'));
  const children: Listening['child'][] = [];
  try {
    process.stdout.write(`seeding ${STUDENTS} students... `);
    const smallSchool = await seed(dataDir);
    console.log('done');
    console.log(`service and baseline run as \`npm start\` runs Node: ${NODE_FLAGS.join(' ') || '(no flags)'}`);

    const env: Record<string, string> = {
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DEMO_DATA: 'false',
      LOG_LEVEL: 'info',
      DATABASE_URL: '',
    };
    if (POLICY) {
      const hash = bcrypt.hashSync(BENCH_PASSWORD, 10);
      const policy = path.join(dataDir, 'policy.yaml');
      env.ACCESS_POLICY = policy;
      writeFileSync(
        policy,
        `users:\n  ${BENCH_USER}: "${hash}"\ndefault:\n  allow: ["127.0.0.0/8", "::1/128"]\n  auth: basic\n`,
      );
      console.log('behind an access policy: network and Basic credentials for every operation');
    }
    let receiver: Listening | null = null;
    if (OTEL) {
      receiver = await startChild(path.join(root, 'scripts/bench-otlp-receiver.ts'), {});
      children.push(receiver.child);
      env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${receiver.port}`;
      console.log('with traces: every call and statement in a span, sent to a local OTLP receiver');
    }
    const service = await startChild(path.join(root, 'dist/main.js'), env);
    children.push(service.child);

    const withCredentials = (cases: Record<string, BenchRequest>): Record<string, BenchRequest> => {
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
    const tokenCases = Object.entries(token) as Array<[Binding, BenchRequest]>;
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
    const listCases: Cases = [
      ['SOAP 1.1', list['SOAP 1.1']],
      ['HTTP GET', list['HTTP GET']],
    ];

    // The baseline answers each case's exact bytes, captured from the service.
    const answers: Record<string, CapturedAnswer> = {};
    const captured: Cases = [
      ...tokenCases.map(([b, r]): [string, BenchRequest] => [`token ${b}`, r]),
      ...listCases.map(([b, r]): [string, BenchRequest] => [`list ${b}`, r]),
      ...heavyCases,
    ];
    for (const [name, req] of captured) {
      const answer = await fetchAnswer(service.port, req);
      if (answer.status !== 200) throw new Error(`${name}: the service answered ${answer.status}`);
      answers[answerKey(req.method, req.path, req.headers)] = answer;
    }
    const answersFile = path.join(dataDir, 'answers.json');
    writeFileSync(answersFile, JSON.stringify(answers));
    const baseline = await startChild(path.join(root, 'scripts/bench-baseline.ts'), { ANSWERS: answersFile });
    children.push(baseline.child);

    if (runs('token')) await benchToken(service, baseline, tokenCases);
    const listGrowth = runs('list') ? await benchList(service, baseline, listCases, list, answers) : null;
    if (runs('calls')) {
      const nodeHttp = await startChild(path.join(root, 'scripts/bench-baseline.ts'), {
        ANSWERS: answersFile,
        BASELINE: 'node-http',
      });
      children.push(nodeHttp.child);
      const studentsFile = path.join(dataDir, 'node-soap-students.json');
      writeFileSync(studentsFile, JSON.stringify(smallSchool));
      const nodeSoap = await startChild(path.join(root, 'scripts/bench-node-soap.ts'), {
        SOAP_TOKEN: TOKEN,
        SOAP_STUDENTS: studentsFile,
      });
      children.push(nodeSoap.child);
      await benchCalls(service, nodeHttp, nodeSoap, [
        ...tokenCases.map(([binding, req]): [string, BenchRequest] => [`GetTokenDevice, ${binding}`, req]),
        ...heavyCases,
      ]);
    }
    if (runs('memory')) await benchMemory(listGrowth);
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

async function benchToken(service: Listening, baseline: Listening, tokenCases: Cases): Promise<void> {
  console.log(`\nGetTokenDevice, ${CONNECTIONS} connections, ${DURATION} s per case`);
  // CPU per call: what the service spends on one, which moves less than req/s on a machine shared with other work.
  console.log('| binding | service req/s | p50 ms | p99 ms | CPU µs/call | baseline req/s | p50 ms | p99 ms | ratio |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const [binding, req] of tokenCases) {
    await load(service.port, req, CONNECTIONS); // warm-up (JIT, caches), not counted
    const pid = pidOf(service.child);
    const cpuBefore = cpuMs(pid);
    const s = checkAnswered(binding, await load(service.port, req));
    const cpu = cpuPerCall(pid, cpuBefore, s.requests.total);
    const b = await load(baseline.port, req);
    const ratio = s.requests.average / b.requests.average;
    console.log(
      `| ${binding} | ${fmt(s.requests.average)} | ${s.latency.p50} | ${s.latency.p99} | ${fmtCpu(cpu)} | ${fmt(b.requests.average)} | ${b.latency.p50} | ${b.latency.p99} | ${fmt(ratio, 2)} ${ratio >= 0.6 ? '' : '(below 0.6)'} |`,
    );
  }
}

/**
 * Each case against node:http answering the same bytes, each SOAP 1.1 case
 * also against node-soap's own server, in alternating order; the
 * CPU per call of each process from /proc. With BENCH_PIN=1 (and `taskset`)
 * the load generator (this process) runs on the first core and the servers
 * on the second, so that they do not take turns on one; on a machine shared
 * with other work that cost the service more calls a second than the
 * baselines (all of its threads, the collector's too, share the one core).
 */
async function benchCalls(service: Listening, nodeHttp: Listening, nodeSoap: Listening, cases: Cases): Promise<void> {
  const pinned = process.env.BENCH_PIN === '1' && pinCores([service, nodeHttp, nodeSoap]);
  console.log(
    `\nEach call against node:http answering the same bytes, ${CONNECTIONS} connections, ${DURATION} s per case${pinned ? ', load on core 0 and servers on core 1' : ''}`,
  );
  console.log(
    '| case | service req/s | CPU µs/call | node:http req/s | CPU µs/call | ratio | node-soap req/s | CPU µs/call | ratio |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const [name, req] of cases) {
    const soap = name.endsWith('SOAP 1.1') ? nodeSoap : null;
    await load(service.port, req); // warm-up (JIT, caches), not counted
    await load(nodeHttp.port, req);
    if (soap !== null) await load(soap.port, req);
    const s = await measured(service, req);
    const h = await measured(nodeHttp, req);
    const k = soap === null ? null : await measured(soap, req);
    const ratio = s.rate / h.rate;
    const soapRatio = k === null ? null : s.rate / k.rate;
    console.log(
      `| ${name} | ${fmt(s.rate)} | ${fmtCpu(s.cpu)} | ${fmt(h.rate)} | ${fmtCpu(h.cpu)} | ${fmt(ratio, 2)} | ${k === null ? '' : fmt(k.rate)} | ${k === null ? '' : fmtCpu(k.cpu)} | ${soapRatio === null ? '' : fmt(soapRatio, 2)} |`,
    );
  }
  console.log(`load average at the end: ${loadAverage()}`);
  // What runs next (the import's commands) starts from this process: give it every core back.
  if (pinned)
    execFileSync('taskset', ['-a', '-p', '-c', `0-${os.cpus().length - 1}`, String(process.pid)], { stdio: 'ignore' });
}

const fmtCpu = (cpu: number | null): string => (cpu === null ? 'n/a' : fmt(cpu));

/** Requests a second and CPU µs per call of one server under the case's load. */
async function measured(server: Listening, req: BenchRequest): Promise<{ rate: number; cpu: number | null }> {
  const pid = pidOf(server.child);
  const before = cpuMs(pid);
  const result = checkAnswered(`${req.method} ${req.path}`, await load(server.port, req));
  return { rate: result.requests.average, cpu: cpuPerCall(pid, before, result.requests.total) };
}

/** This process on the first core, the servers (every thread) on the second; false where taskset cannot. */
function pinCores(servers: readonly Listening[]): boolean {
  if (os.availableParallelism() < 2) return false;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
    for (const server of servers)
      execFileSync('taskset', ['-a', '-p', '-c', '1', String(pidOf(server.child))], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The GetStudentSchool table; resolves with the largest peak RSS growth seen, in kB. */
async function benchList(
  service: Listening,
  baseline: Listening,
  listCases: Cases,
  list: Record<string, BenchRequest>,
  answers: Record<string, CapturedAnswer>,
): Promise<number> {
  const pid = pidOf(service.child);
  let largest = 0;
  console.log(
    `\nGetStudentSchool, all ${STUDENTS} students (${fmt(Buffer.from(answers[answerKey('GET', list['HTTP GET'].path, list['HTTP GET'].headers)].body, 'base64').length)} bytes over GET)`,
  );
  console.log('| binding | connections | median ms | p99 ms | req/s | baseline median ms | peak RSS growth MB |');
  console.log('|---|---|---|---|---|---|---|');
  for (const [binding, req] of listCases) {
    for (const connections of [1, CONNECTIONS]) {
      await load(service.port, req, connections);
      const before = rssKb(pid, 'VmRSS');
      writeFileSync(`/proc/${pid}/clear_refs`, '5'); // resets the peak (VmHWM)
      const s = checkAnswered(binding, await load(service.port, req, connections));
      const growth = Math.max(0, rssKb(pid, 'VmHWM') - before);
      largest = Math.max(largest, growth);
      const b = await load(baseline.port, req, connections);
      console.log(
        `| ${binding} | ${connections} | ${s.latency.p50} | ${s.latency.p99} | ${fmt(s.requests.average)} | ${b.latency.p50} | ${fmt(growth / 1024, 1)} |`,
      );
    }
  }
  return largest;
}

/**
 * The service's resident set at idle and after a mixed load (scripts/soak.ts:
 * every operation over every binding, and the documents, on a fresh service),
 * beside the list part's peak growth; what issue targets read as memory.
 */
async function benchMemory(listGrowthKb: number | null): Promise<void> {
  console.log(`\nMemory: a fresh service, then ${SOAK_MINUTES} min of mixed load (BENCH_SOAK_MINUTES)`);
  const result = await soak(SOAK_MINUTES, Math.max(1, Math.min(30, SOAK_MINUTES * 6)), () => undefined);
  checkPositive('RSS at idle', result.idleKb);
  console.log('| RSS at idle | after the load | growth | peak (at) | requests | GetStudentSchool 5,000: peak growth |');
  console.log('|---|---|---|---|---|---|');
  console.log(
    `| ${mb(result.idleKb)} | ${mb(result.endKb)} | ${mb(result.endKb - result.idleKb)} | ${mb(result.peak.rss)} (${fmt(result.peak.at / 1000)} s) | ${fmt(result.requests)} in ${fmt(result.seconds)} s${result.failures > 0 ? `, ${result.failures} failed` : ''} | ${listGrowthKb === null ? 'n/a (BENCH_ONLY)' : mb(listGrowthKb)} |`,
  );
  // Growth across the soak, not only at its end: the RSS at each tenth of it.
  const tenths = Array.from({ length: 10 }, (_, i) => {
    const due = ((i + 1) * result.seconds * 1000) / 10;
    return result.samples.reduce((best, s) => (Math.abs(s.at - due) < Math.abs(best.at - due) ? s : best));
  });
  console.log(`RSS during the load: ${tenths.map((s) => `${fmt(s.at / 1000)} s ${mb(s.rss)}`).join(', ')}`);
  if (result.failures > 0) throw new Error(`the mixed load had ${result.failures} unexpected failures`);
}

runMain(main);
