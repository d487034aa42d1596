// The console's student search at 100,000 students (docs/console.md#find-a-student):
// the time of one results page (GET /console/students?q=…, signed in),
// measured on loopback from request to last byte, for a Latin part of a
// name, an Arabic one, a rare word and an id; median and 95th percentile of
// BENCH_CONSOLE_ROUNDS (30) pages each. Then the list of messages at
// BENCH_CONSOLE_MESSAGES (1,000,000) messages (docs/console.md#messages):
// the first page and the 400th (reached by following Older 399 times),
// unfiltered, by status and by school, and a phone's last digits. SQLite
// always; PostgreSQL too when BENCH_DATABASE_URL or TEST_DATABASE_URL is
// set. Run by `npm run bench`, or alone after `npm run build`:
// `node -r ./test/delivery/support/register-ts.js scripts/bench-console.ts`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import bcrypt from 'bcryptjs';
import express from 'express';
import { Client } from 'pg';
import pino from 'pino';
import type * as BcryptPoolModule from '../src/access/bcrypt-pool';
import type * as ConsoleModule from '../src/console';
import {
  built,
  checkFigure,
  createLocation,
  DATABASE_URL,
  openStore,
  quantile,
  runMain,
  scaled,
  skipPart,
  type Store,
  type StoreLocation,
} from './bench-support';

const { createConsole } = built<typeof ConsoleModule>('console');
const { createBcryptPool } = built<typeof BcryptPoolModule>('access/bcrypt-pool');
type Options = StoreLocation['options'];

const STUDENTS = scaled('BENCH_CONSOLE_STUDENTS', 100_000, 50);
const MESSAGES = scaled('BENCH_CONSOLE_MESSAGES', 1_000_000, 500);
const PAGE_DEPTH = scaled(null, 400, 3);
const ROUNDS = scaled('BENCH_CONSOLE_ROUNDS', 30, 1);
const BATCH = 5_000;
const PASSWORD = 'bench password long enough';

async function seed(store: Store): Promise<void> {
  await store.dataSet.writeDataSet({
    schools: Array.from({ length: 20 }, (_, s) => ({
      baseUrl: `https://school-${s}.bench.example`,
      name: `School ${s}`,
    })),
  });
  const first = ['Ahmad', 'Maya', 'Omar', 'Lina', 'Sami', 'مُحَمَّد', 'فاطمة', 'يوسف', 'ليلى', 'Zaid'];
  const last = ['Ali', 'Haddad', 'Nassar', 'Khoury', 'الحسن', 'العلي', 'Saleh', 'Darwish'];
  for (let start = 0; start < STUDENTS; start += BATCH) {
    const students: Array<{ id: string; school: string; fullName: string; classId: string }> = [];
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

// Messages written by SQL in one statement per table (the outbox's own insert would take an hour):
// four in five are pushes; two rows share each millisecond; the ids are not in time order;
// 85% sent, 5% dead, 4% retrying, 3% queued, 2% uncertain, 1% in flight.
const BASE_SECONDS = Date.parse('2026-01-01T00:00:00.000Z') / 1000;
const STATUS_SQL = `case when i % 100 < 85 then 'sent' when i % 100 < 90 then 'dead' when i % 100 < 94 then 'failed'
  when i % 100 < 97 then 'queued' when i % 100 < 99 then 'uncertain' else 'sending' end`;

async function seedMessages(name: string, options: Options): Promise<number> {
  const pushes = Math.floor((MESSAGES * 4) / 5);
  if (name === 'sqlite') {
    const db = new Database(path.join(options.dataDir, 'service.sqlite'));
    const at = `strftime('%Y-%m-%dT%H:%M:%fZ', ${BASE_SECONDS} + (i / 2) * 0.001 * 5, 'unixepoch')`;
    const id = `printf('%08x-%d', (i * 2654435761) % 4294967296, i)`;
    db.exec(`with recursive n(i) as (select 0 union all select i + 1 from n where i + 1 < ${MESSAGES})
      insert into push_notifications (id, device_id, student_id, type, title, body, data, status, attempts,
        next_attempt_at, created_at, updated_at, school_key)
      select ${id}, 'dev', cast(${1_000_000} + i % ${STUDENTS} as text), case i % 3 when 0 then 'absence' when 1 then 'note' else 'grade' end,
        't', 'b', '{}', ${STATUS_SQL}, 1, ${at}, ${at}, ${at}, 'https://school-' || (i % 20) || '.bench.example'
      from n where i % 5 <> 4`);
    db.exec(`with recursive n(i) as (select 0 union all select i + 1 from n where i + 1 < ${MESSAGES})
      insert into auth_code_messages (id, phone, code, status, attempts, next_attempt_at, created_at, updated_at)
      select ${id}, '+9639' || printf('%08d', i), null, ${STATUS_SQL}, 1, ${at}, ${at}, ${at}
      from n where i % 5 = 4`);
    db.exec('analyze');
    db.close();
  } else {
    const client = new Client({ connectionString: options.databaseUrl });
    await client.connect();
    await client.query(`set search_path to ${options.schema ?? 'public'}`);
    const at = `to_char(to_timestamp(${BASE_SECONDS} + (i / 2) * 0.005) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    const id = `lpad(to_hex((i * 2654435761) % 4294967296), 8, '0') || '-' || i`;
    await client.query(`insert into push_notifications (id, device_id, student_id, type, title, body, data, status,
        attempts, next_attempt_at, created_at, updated_at, school_key)
      select ${id}, 'dev', (${1_000_000} + i % ${STUDENTS})::text, case i % 3 when 0 then 'absence' when 1 then 'note' else 'grade' end,
        't', 'b', '{}', ${STATUS_SQL}, 1, ${at}, ${at}, ${at}, 'https://school-' || (i % 20) || '.bench.example'
      from generate_series(0, ${MESSAGES - 1}) as i where i % 5 <> 4`);
    await client.query(`insert into auth_code_messages (id, phone, code, status, attempts, next_attempt_at, created_at, updated_at)
      select ${id}, '+9639' || lpad(i::text, 8, '0'), null, ${STATUS_SQL}, 1, ${at}, ${at}, ${at}
      from generate_series(0, ${MESSAGES - 1}) as i where i % 5 = 4`);
    await client.query('analyze push_notifications');
    await client.query('analyze auth_code_messages');
    await client.end();
  }
  return pushes;
}

function getText(port: number, pathAndQuery: string, cookie: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: pathAndQuery, headers: { cookie } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

/** The path of the page `depth` of a list (or its last, if it has fewer), by following its Older link from the first. */
async function pageAt(
  port: number,
  first: string,
  depth: number,
  cookie: string,
): Promise<{ at: string; depth: number }> {
  let at = first;
  for (let n = 1; n < depth; n++) {
    const answer = await getText(port, at, cookie);
    if (answer.status !== 200) throw new Error(`${at} answered ${answer.status}`);
    const older = /<a rel="next" href="([^"]+)"/.exec(answer.body);
    if (older === null) return { at, depth: n };
    at = older[1].replace(/&amp;/g, '&');
  }
  return { at, depth };
}

async function timePage(port: number, pathAndQuery: string, cookie: string): Promise<number[]> {
  // A page that lists nothing would time nothing worth knowing.
  const shown = /(\d+) messages? on this page/.exec((await getText(port, pathAndQuery, cookie)).body);
  if (shown === null) throw new Error(`${pathAndQuery} lists no message`);
  const times: number[] = [];
  for (let i = 0; i < ROUNDS + 3; i++) {
    const answer = await get(port, pathAndQuery, cookie);
    if (answer.status !== 200) throw new Error(`${pathAndQuery} answered ${answer.status}`);
    if (i >= 3) times.push(answer.ms);
  }
  return times.sort((a, b) => a - b);
}

function get(port: number, pathAndQuery: string, cookie: string): Promise<{ status: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.get({ host: '127.0.0.1', port, path: pathAndQuery, headers: { cookie } }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, ms: Number(process.hrtime.bigint() - started) / 1e6 }),
      );
    });
    req.on('error', reject);
  });
}

async function signIn(port: number): Promise<string> {
  const form = await new Promise<{ body: string; cookie: string }>((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/console/sign-in' }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ body, cookie: String(res.headers['set-cookie']).split(';')[0] }));
      })
      .on('error', reject);
  });
  const csrf = /name="csrf" value="([^"]+)"/.exec(form.body)?.[1];
  if (csrf === undefined) throw new Error('the sign-in page holds no csrf field');
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

async function run(name: string, options: Options): Promise<void> {
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
        stores: { console: store.console, admin: store.admin, access: store.access },
        settings: { secureCookies: false, idleMs: 3_600_000, maxAgeMs: 3_600_000, allow: null },
        logger: pino({ level: 'silent' }),
        bcrypt: pool,
      }),
    );
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const cookie = await signIn(port);
    const cases = [
      ['Latin part of a name', 'hadd'],
      ['Arabic, typed without diacritics', 'محمد'],
      ['a rare word', '99999'],
      ['an id', '1054321'],
    ];
    for (const [label, q] of cases) {
      const times: number[] = [];
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
    if (MESSAGES > 0) {
      const seeded = Date.now();
      await seedMessages(name, options);
      // The server has closed the connections kept alive from the searches meanwhile.
      http.globalAgent.destroy();
      console.log(
        `${name}: ${MESSAGES.toLocaleString('en')} messages written in ${((Date.now() - seeded) / 1000).toFixed(1)} s`,
      );
      const lists: Array<[string, string, boolean]> = [
        ['all messages', '/console/messages', true],
        ['status dead', '/console/messages?status=dead', true],
        ['one school', `/console/messages?school=${encodeURIComponent('https://school-7.bench.example')}`, true],
        // A suffix the generated phones hold: the message numbered 4324 (or 499 of a smoke run's 500) is a login code.
        ["a phone's last 4 digits", `/console/messages?q=${scaled(null, '4324', '0499')}`, false],
      ];
      for (const [label, first, deep] of lists) {
        const firstTimes = await timePage(port, first, cookie);
        let line = `${name}: messages, ${label}: page 1 in ${quantile(firstTimes, 0.5).toFixed(1)} ms median, ${quantile(firstTimes, 0.95).toFixed(1)} ms p95`;
        if (deep) {
          const deep = await pageAt(port, first, PAGE_DEPTH, cookie);
          const deepTimes = await timePage(port, deep.at, cookie);
          line += `; page ${deep.depth} in ${quantile(deepTimes, 0.5).toFixed(1)} ms median, ${quantile(deepTimes, 0.95).toFixed(1)} ms p95`;
        }
        console.log(line);
      }
    }
    server.close();
  } finally {
    await pool.close();
    await store.lifecycle.close();
  }
}

async function main(): Promise<void> {
  const sqlite = createLocation('sqlite');
  try {
    await run('sqlite', sqlite.options);
    if (DATABASE_URL !== '') {
      const postgres = createLocation('postgres');
      try {
        await run('postgres', { ...postgres.options, dataDir: sqlite.options.dataDir });
      } finally {
        await postgres.remove();
      }
    } else skipPart('PostgreSQL', 'set BENCH_DATABASE_URL or TEST_DATABASE_URL');
  } finally {
    await sqlite.remove();
  }
}

runMain(main);
