// Two Node.js runtimes serving the same calls: CPU per call of the service
// process and calls/s, GetTokenDevice on every binding, the two runtimes in
// alternating rounds on one machine (docs/benchmark.md#runtime). CPU per call
// is read from /proc, so it holds up better than calls/s on a busy machine.
//
//   BENCH_NODE_B=/path/to/other/node [BENCH_ROOT_B=/folder] node scripts/bench-runtime.mjs
//
// A runs `process.execPath` on this checkout's dist/. B runs BENCH_NODE_B on
// BENCH_ROOT_B's dist/ (default: this checkout): a folder holding a copy of
// dist/ and wsdl/ and a node_modules whose native modules were built for B
// (better-sqlite3 13 needs Node 22 or newer; for Node 20, 12.x).
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import {
  BINDINGS,
  checkFigure,
  checkPositive,
  cpuMs,
  LOAD_OPTIONS,
  NODE_FLAGS,
  request,
  root,
  scaled,
  settleLoad,
  skipPart,
  SMOKE,
} from './bench-support.mjs';

const require = createRequire(import.meta.url);
const autocannon = require('autocannon');
const { openStore } = require(path.join(root, 'dist/store'));

// A smoke run without a second runtime compares this one with itself: the path is the same.
const NODE_B = process.env.BENCH_NODE_B || (SMOKE ? process.execPath : undefined);
if (!process.env.BENCH_NODE_B && SMOKE) skipPart('A second runtime', 'BENCH_NODE_B is unset; B is this Node too');
if (!NODE_B) {
  console.error('Set BENCH_NODE_B to the other node binary (see the header of this file).');
  process.exit(2);
}
const ROOT_B = process.env.BENCH_ROOT_B ?? root;
const ROUNDS = scaled('BENCH_ROUNDS', 3, 1);
const DURATION = scaled('BENCH_DURATION', 5, 0.1);

function version(node) {
  return new Promise((resolve) => {
    const child = spawn(node, ['--version']);
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('exit', () => resolve(out.trim()));
  });
}

function start(node, folder, dataDir) {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [...NODE_FLAGS, path.join(folder, 'dist/main.js')], {
      cwd: folder,
      env: {
        PATH: process.env.PATH,
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DEMO_DATA: 'false',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    const onData = (chunk) => {
      out += chunk;
      const match = /^(?=.*listening).*"port":(\d+)/m.exec(out);
      if (match) {
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve({ child, port: Number(match[1]) });
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${node} exited with ${code} before listening:\n${out}`)));
  });
}

function load(port, req) {
  return new Promise((resolve, reject) =>
    autocannon(
      {
        url: `http://127.0.0.1:${port}${req.path}`,
        ...req,
        connections: 10,
        duration: DURATION,
        ...LOAD_OPTIONS,
      },
      settleLoad(resolve, reject),
    ),
  );
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-runtime-'));
const runtimes = [
  { name: 'A', node: process.execPath, folder: root },
  { name: 'B', node: NODE_B, folder: ROOT_B },
];
try {
  const seedDir = path.join(dataDir, 'seed');
  const store = await openStore({ dataDir: seedDir });
  await store.dataSet.writeDataSet({
    schools: [{ baseUrl: 'https://bench.school.example', name: 'Bench School' }],
    devices: [{ id: 'dev-bench', token: 'fcm:bench-token-0123456789abcdef', platform: 'android' }],
    students: [],
  });
  await store.lifecycle.close();
  for (const r of runtimes) {
    r.version = await version(r.node);
    r.dataDir = path.join(dataDir, r.name);
    cpSync(seedDir, r.dataDir, { recursive: true });
    r.service = await start(r.node, r.folder, r.dataDir);
    r.results = Object.fromEntries(BINDINGS.map((b) => [b, []]));
  }
  console.log(`A: ${runtimes[0].version}, B: ${runtimes[1].version}; flags ${NODE_FLAGS.join(' ') || '(none)'}`);
  for (let round = 0; round < ROUNDS; round++) {
    for (const binding of BINDINGS) {
      const req = request('PushNotificationMobile', 'GetTokenDevice', { id: 'dev-bench' }, binding);
      for (const r of round % 2 === 0 ? runtimes : [...runtimes].reverse()) {
        const before = cpuMs(r.service.child.pid);
        const result = await load(r.service.port, req);
        const used = cpuMs(r.service.child.pid) - before;
        if (result.non2xx > 0 || result.errors > 0)
          throw new Error(`${r.name} ${binding}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
        // CPU is read in 10 ms ticks: a short smoke load may count none.
        r.results[binding].push({
          cpuUs: checkFigure(`${r.name} ${binding}: CPU µs/call`, (used * 1000) / result.requests.total),
          rate: checkPositive(`${r.name} ${binding}: calls/s`, result.requests.average),
        });
      }
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log('\nGetTokenDevice, 10 connections; medians of the rounds');
  console.log('| binding | A CPU µs/call | B CPU µs/call | A/B CPU | A calls/s | B calls/s |');
  console.log('|---|---|---|---|---|---|');
  for (const binding of BINDINGS) {
    const [a, b] = runtimes.map((r) => ({
      cpu: median(r.results[binding].map((x) => x.cpuUs)),
      rate: median(r.results[binding].map((x) => x.rate)),
    }));
    console.log(
      `| ${binding} | ${a.cpu.toFixed(0)} | ${b.cpu.toFixed(0)} | ${(a.cpu / b.cpu).toFixed(2)} | ${a.rate.toFixed(0)} | ${b.rate.toFixed(0)} |`,
    );
  }
} finally {
  for (const r of runtimes) r.service?.child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 500));
  rmSync(dataDir, { recursive: true, force: true });
}
