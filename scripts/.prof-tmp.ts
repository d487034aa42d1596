// throwaway: profile the service under one binding's load
import { mkdtempSync, writeFileSync } from 'node:fs';
import { answerKey } from './bench-answer-key';
import os from 'node:os';
import path from 'node:path';
import { openStore, request, root, runLoad, startChild, BINDINGS, pidOf, cpuMs, cpuPerCall } from './bench-support';
async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'prof-'));
  const store = await openStore({ dataDir });
  await store.dataSet.writeDataSet({
    schools: [{ baseUrl: 'https://b.example', name: 'B' }],
    devices: [{ id: 'dev-bench', token: 'fcm:bench-token-0123456789abcdef', platform: 'android' }],
    students: [{ id: 's1', school: 'https://b.example', fullName: 'Bench Student', deviceId: 'dev-bench', active: '1' }],
  } as never);
  await store.lifecycle.close();
  const binding = (process.env.B ?? 'HTTP GET') as (typeof BINDINGS)[number];
  const profDir = process.env.PROFDIR;
  const flags: Record<string,string> = profDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-interval=50 --cpu-prof-dir=${profDir}` } : {};
  const svc = await startChild(path.resolve(root, process.env.MAIN ?? 'dist/main.js'), { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: '', DEMO_DATA: 'false', LOG_LEVEL: 'info', ...flags });
  const req = request('PushNotificationMobile', 'GetTokenDevice', { id: 'dev-bench' }, binding);
  let target = svc;
  if (process.env.BASE) {
    const res = await fetch(`http://127.0.0.1:${svc.port}${req.path}`, { method: req.method, headers: req.headers, body: req.body });
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'cache-control']) { const v = res.headers.get(name); if (v !== null) headers[name] = v; }
    const ans = { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()).toString('base64') };
    const f = path.join(dataDir, 'answers.json');
    writeFileSync(f, JSON.stringify({ [answerKey(req.method, req.path, req.headers)]: ans }));
    target = await startChild(path.join(root, 'scripts/bench-baseline.ts'), { ANSWERS: f, BASELINE: 'node-http', ...flags });
  }
  const svc0 = svc; void svc0;
  await runLoad(target.port, req, { connections: 10, duration: 2 });
  const pid = pidOf(target.child); const before = cpuMs(pid);
  const { execSync } = await import('node:child_process');
  const t0 = execSync(`bash /tmp/threads.sh ${pid}`).toString();
  const perf = process.env.PERF ? (await import('node:child_process')).spawn('perf', ['record', '-e', 'cpu-clock', '-g', '-o', process.env.PERF, '-p', String(pid), '--', 'sleep', String(Number(process.env.D ?? 5) - 1)], { stdio: 'ignore' }) : null;
  const st = process.env.STRACE ? (await import('node:child_process')).spawn('timeout', ['-s', 'INT', String(Number(process.env.D ?? 5) - 1), 'strace', '-f', '-c', '-o', process.env.STRACE, '-p', String(pid)], { stdio: 'ignore' }) : null;
  const r = await runLoad(target.port, req, { connections: 10, duration: Number(process.env.D ?? 5) });
  if (st) await new Promise((res) => st.once('exit', res));
  if (perf) await new Promise((res) => perf.once('exit', res));
  console.log(t0, '---\n', execSync(`bash /tmp/threads.sh ${pid}`).toString());
  console.log(binding, r.requests.average, 'req/s', cpuPerCall(pid, before, r.requests.total), 'µs/call', 'total', r.requests.total, 'status', r.non2xx);
  if (target !== svc) { target.child.kill('SIGTERM'); await new Promise((res) => target.child.on('exit', res)); }
  svc.child.kill('SIGTERM');
  await new Promise((res) => svc.child.on('exit', res));
}
void main();
