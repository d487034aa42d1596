// The console's student search at 100,000 students (docs/console.md#find-a-student):
// the time of one results page (GET /console/students?q=…, signed in),
// measured on loopback from request to last byte, for a Latin part of a
// name, an Arabic one, a rare word and an id; median and 95th percentile of
// BENCH_CONSOLE_ROUNDS (30) pages each. SQLite always; PostgreSQL too when
// BENCH_DATABASE_URL or TEST_DATABASE_URL is set. Run by `npm run bench`, or
// alone after `npm run build`: `node scripts/bench-console.mjs`.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { checkFigure, root, scaled, skipPart } from './bench-support.mjs';

const require = createRequire(import.meta.url);
const { openStore } = require(path.join(root, 'dist/store'));
const { createConsole } = require(path.join(root, 'dist/console'));
const { createBcryptPool } = require(path.join(root, 'dist/access/bcrypt-pool'));
const bcrypt = require('bcryptjs');
const express = require('express');
const pino = require('pino');

const STUDENTS = scaled('BENCH_CONSOLE_STUDENTS', 100_000, 50);
const ROUNDS = scaled('BENCH_CONSOLE_ROUNDS', 30, 1);
const BATCH = 5_000;
const PASSWORD = 'bench password long enough';

async function seed(store) {
  await store.dataSet.writeDataSet({
    schools: Array.from({ length: 20 }, (_, s) => ({
      baseUrl: `https://school-${s}.bench.example`,
      name: `School ${s}`,
    })),
  });
  const first = ['Ahmad', 'Maya', 'Omar', 'Lina', 'Sami', 'مُحَمَّد', 'فاطمة', 'يوسف', 'ليلى', 'Zaid'];
  const last = ['Ali', 'Haddad', 'Nassar', 'Khoury', 'الحسن', 'العلي', 'Saleh', 'Darwish'];
  for (let start = 0; start < STUDENTS; start += BATCH) {
    const students = [];
    for (let i = start; i < Math.min(STUDENTS, start + BATCH); i++)
      students.push({
        id: String(1_000_000 + i),
        school: `https://school-${i % 20}.bench.example`,
        fullName: `${first[i % first.length]} ${last[(i * 7) % last.length]} ${i}`,
        classId: `C${i % 40}`,
      });
    await store.dataSet.writeDataSet({ students });
  }
  await store.console.writeAccount({ name: 'bench', passwordHash: bcrypt.hashSync(PASSWORD, 4), role: 'viewer' });
}

function get(port, pathAndQuery, cookie) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.get({ host: '127.0.0.1', port, path: pathAndQuery, headers: { cookie } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
    });
    req.on('error', reject);
  });
}

async function signIn(port) {
  const form = await new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/console/sign-in' }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ body, cookie: String(res.headers['set-cookie']).split(';')[0] }));
      })
      .on('error', reject);
  });
  const csrf = /name="csrf" value="([^"]+)"/.exec(form.body)[1];
  const data = new URLSearchParams({ csrf, name: 'bench', password: PASSWORD }).toString();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/console/sign-in',
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie },
      },
      (res) => {
        res.resume();
        const session = (res.headers['set-cookie'] ?? []).find((c) => c.startsWith('sns_console_session='));
        if (res.statusCode !== 303 || session === undefined) reject(new Error(`sign-in answered ${res.statusCode}`));
        else resolve(session.split(';')[0]);
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

async function run(name, options) {
  const store = await openStore(options);
  const pool = createBcryptPool({ threads: 1 });
  try {
    const seeded = Date.now();
    await seed(store);
    console.log(
      `${name}: ${STUDENTS.toLocaleString('en')} students written in ${((Date.now() - seeded) / 1000).toFixed(1)} s`,
    );
    const app = express();
    app.use(
      createConsole({
        stores: { console: store.console, admin: store.admin, access: store.access, import: store.dataSet },
        settings: { secureCookies: false, idleMs: 3_600_000, maxAgeMs: 3_600_000, allow: null },
        logger: pino({ level: 'silent' }),
        bcrypt: pool,
      }),
    );
    const server = http.createServer(app);
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address();
    const cookie = await signIn(port);
    const cases = [
      ['Latin part of a name', 'hadd'],
      ['Arabic, typed without diacritics', 'محمد'],
      ['a rare word', '99999'],
      ['an id', '1054321'],
    ];
    for (const [label, q] of cases) {
      const times = [];
      for (let i = 0; i < ROUNDS + 3; i++) {
        const answer = await get(port, `/console/students?q=${encodeURIComponent(q)}`, cookie);
        if (answer.status !== 200) throw new Error(`search answered ${answer.status}`);
        if (i >= 3) times.push(answer.ms);
      }
      times.sort((a, b) => a - b);
      checkFigure(`${name}: ${label}: median ms`, quantile(times, 0.5));
      console.log(
        `${name}: ${label} (${JSON.stringify(q)}): page in ${quantile(times, 0.5).toFixed(1)} ms median, ${quantile(times, 0.95).toFixed(1)} ms p95`,
      );
    }
    server.close();
  } finally {
    await pool.close();
    await store.lifecycle.close();
  }
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-bench-console-'));
try {
  await run('sqlite', { dataDir });
  const databaseUrl = (process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? '').trim();
  if (databaseUrl !== '') {
    const schema = `bench_console_${randomBytes(4).toString('hex')}`;
    await run('postgres', { databaseUrl, schema, dataDir });
    const pg = require('pg');
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`drop schema ${schema} cascade`);
    await client.end();
  } else skipPart('PostgreSQL', 'set BENCH_DATABASE_URL or TEST_DATABASE_URL');
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
