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
import type { MessageListFilter } from '../src/store';
import type * as MessageListModule from '../src/store/message-history/message-list';
import { compileOnly } from '../test/support/compile-only';
import {
  built,
  checkFigure,
  createLocation,
  loadAverage,
  DATABASE_URL,
  openStore,
  quantile,
  runMain,
  scaled,
  skipPart,
  SMOKE,
  type Store,
  type StoreLocation,
} from './bench-support';

const { createConsole } = built<typeof ConsoleModule>('console');
const { createBcryptPool } = built<typeof BcryptPoolModule>('access/bcrypt-pool');
const { messageListQueries } = built<typeof MessageListModule>('store/message-history/message-list');
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

// Messages written by SQL in one statement per table (the outbox's own insert would take an hour), spread
// over six months from BASE, two rows sharing each instant, the ids not in time order:
// - four in five are pushes, to the students in turn (each of the 20 schools), of five types:
//   absence 40%, note 30%, mark 20%, general 8%, exam 2% (the rare one), and none of audit;
// - statuses, on both channels: 85% sent, 5% dead, 4% retrying, 3% queued, 2% uncertain, 1% in flight;
// - one refused call for every 100 messages (of both operations), for a phone's suffix or a student.
const BASE_SECONDS = Date.parse('2026-01-01T00:00:00.000Z') / 1000;
const SPAN_SECONDS = 182 * 86_400;
/** The seconds between one pair of rows and the next. */
const STEP_SECONDS = (SPAN_SECONDS * 2) / MESSAGES;
const STATUS_SQL = `case when (i / 5) % 100 < 85 then 'sent' when (i / 5) % 100 < 90 then 'dead'
  when (i / 5) % 100 < 94 then 'failed' when (i / 5) % 100 < 97 then 'queued'
  when (i / 5) % 100 < 99 then 'uncertain' else 'sending' end`;
const TYPE_SQL = `case when (i / 7) % 50 < 20 then 'absence' when (i / 7) % 50 < 35 then 'note'
  when (i / 7) % 50 < 45 then 'mark' when (i / 7) % 50 < 49 then 'general' else 'exam' end`;
const REFUSALS = Math.floor(MESSAGES / 100);

/** The statements that write the messages, with `at` the SQL of row i's time, `id` its id, `n` the row numbers below `count`. */
function seedStatements(at: string, id: string, n: (count: number) => string, pad8: string): string[] {
  return [
    `insert into push_notifications (id, device_id, student_id, type, title, body, data, status, attempts,
        next_attempt_at, created_at, updated_at, sent_at, school_key, last_error)
      select ${id}, 'dev', cast(${1_000_000} + i % ${STUDENTS} as text), ${TYPE_SQL}, 't', 'b', '{}', ${STATUS_SQL},
        1, ${at}, ${at}, ${at}, case when (i / 5) % 100 < 85 then ${at} end,
        'https://school-' || (i % 20) || '.bench.example',
        case when (i / 5) % 100 between 85 and 93 then 'UNREGISTERED' end
      from ${n(MESSAGES)} where i % 5 <> 4`,
    `insert into auth_code_messages (id, phone, code, status, attempts, next_attempt_at, created_at, updated_at, sent_at)
      select ${id}, '+9639' || ${pad8}, null, ${STATUS_SQL}, 1, ${at}, ${at}, ${at},
        case when (i / 5) % 100 < 85 then ${at} end
      from ${n(MESSAGES)} where i % 5 = 4`,
    // A refusal among the messages' times: i stands for the message numbered i * 100.
    `insert into refused_calls (id, created_at, operation, channel, reason, student_id, school_key, type, phone, phone_suffix)
      select 'refused-' || i, ${at.replace(/\bi\b/g, '(i * 100)')},
        case when i % 2 = 0 then 'SendNotificationType' else 'AuthCode' end,
        case when i % 2 = 0 then 'push' else 'sms' end,
        case when i % 2 = 0 then 'no_token' else 'auth_code_limit_phone' end,
        case when i % 2 = 0 then cast(${1_000_000} + i % ${STUDENTS} as text) end,
        case when i % 2 = 0 then 'https://school-' || (i % 20) || '.bench.example' end,
        case when i % 2 = 0 then 'absence' end,
        case when i % 2 = 1 then '+*********' || substr(${pad8}, 6) end,
        case when i % 2 = 1 then substr(${pad8}, 5) end
      from ${n(REFUSALS)}`,
  ];
}

async function seedMessages(name: string, options: Options): Promise<void> {
  if (name === 'sqlite') {
    const db = new Database(path.join(options.dataDir, 'service.sqlite'));
    const at = `strftime('%Y-%m-%dT%H:%M:%fZ', ${BASE_SECONDS} + (i / 2) * ${STEP_SECONDS}, 'unixepoch')`;
    const id = `printf('%08x-%d', (i * 2654435761) % 4294967296, i)`;
    const n = (count: number) =>
      `(with recursive n(i) as (select 0 union all select i + 1 from n where i + 1 < ${count}) select i from n)`;
    for (const statement of seedStatements(at, id, n, `printf('%08d', i)`)) db.exec(statement);
    db.exec('analyze');
    db.close();
  } else {
    const client = new Client({ connectionString: options.databaseUrl });
    await client.connect();
    await client.query(`set search_path to ${options.schema ?? 'public'}`);
    const at = `to_char(to_timestamp(${BASE_SECONDS} + (i / 2) * ${STEP_SECONDS}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    const id = `lpad(to_hex((i * 2654435761) % 4294967296), 8, '0') || '-' || i`;
    const n = (count: number) => `generate_series(0, ${count - 1}) as i`;
    for (const statement of seedStatements(at, id, n, `lpad(i::text, 8, '0')`)) await client.query(statement);
    for (const table of ['push_notifications', 'auth_code_messages', 'refused_calls'])
      await client.query(`analyze ${table}`);
    await client.end();
  }
}

/**
 * The server's own time of each request, from its arrival at the application to its last byte handed to the
 * socket ('finish'), and to its first (the first write: a CSV's first rows), keyed by the X-Bench-Request
 * header the client sends: the client's wall time adds its own parsing and the loopback's.
 */
interface ServerTime {
  readonly firstByteMs: number;
  readonly ms: number;
  /**
   * The process's CPU time meanwhile (the client waits, one request at a time): what the page costs the
   * service, less moved by the machine's other work than the time is; a PostgreSQL server's own is not in it.
   */
  readonly cpuMs: number;
}
const serverTimes = new Map<string, (time: ServerTime) => void>();
let requestNumber = 0;

function serverTimer(req: express.Request, res: express.Response, next: express.NextFunction): void {
  const key = req.get('x-bench-request');
  const done = key === undefined ? undefined : serverTimes.get(key);
  if (done === undefined) return next();
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  let firstByte: bigint | null = null;
  const mark = () => (firstByte ??= process.hrtime.bigint());
  for (const method of ['write', 'end'] as const) {
    const original = res[method].bind(res) as (...args: unknown[]) => unknown;
    (res as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      mark();
      return original(...args);
    };
  }
  res.once('finish', () => {
    const now = process.hrtime.bigint();
    const used = process.cpuUsage(cpu);
    done({
      firstByteMs: Number((firstByte ?? now) - started) / 1e6,
      ms: Number(now - started) / 1e6,
      cpuMs: (used.user + used.system) / 1000,
    });
  });
  next();
}

/** One request, read to its end, with the server's time of it. */
async function get(
  port: number,
  pathAndQuery: string,
  cookie: string,
): Promise<{ status: number; body: string; server: ServerTime }> {
  const key = String(++requestNumber);
  const server = new Promise<ServerTime>((resolve) => serverTimes.set(key, resolve));
  try {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: pathAndQuery, headers: { cookie, 'x-bench-request': key } }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        })
        .on('error', reject);
    });
    return { ...answer, server: await server };
  } finally {
    serverTimes.delete(key);
  }
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
    const answer = await get(port, at, cookie);
    if (answer.status !== 200) throw new Error(`${at} answered ${answer.status}`);
    const older = /<a rel="next" href="([^"]+)"/.exec(answer.body);
    if (older === null) return { at, depth: n };
    at = older[1].replace(/&amp;/g, '&');
  }
  return { at, depth };
}

/** The server's times of ROUNDS requests of a path, after 3 unmeasured ones. */
async function serverTimesOf(port: number, pathAndQuery: string, cookie: string): Promise<ServerTime[]> {
  const times: ServerTime[] = [];
  for (let i = 0; i < ROUNDS + 3; i++) {
    const answer = await get(port, pathAndQuery, cookie);
    if (answer.status !== 200) throw new Error(`${pathAndQuery} answered ${answer.status}`);
    if (i >= 3) times.push(answer.server);
  }
  return times;
}

/**
 * A page's times, once it is known to list messages (a page that lists nothing would time nothing worth
 * knowing), or to list none when `none` (the worst case of a filter checked row by row): its figures.
 */
async function timePage(port: number, pathAndQuery: string, cookie: string, none = false): Promise<string> {
  const body = (await get(port, pathAndQuery, cookie)).body;
  const shown = none ? /No message matches/.test(body) : /\d+ messages? on this page/.test(body);
  if (!shown) throw new Error(`${pathAndQuery} lists ${none ? 'messages' : 'no message'}`);
  return figuresOf(pathAndQuery, await serverTimesOf(port, pathAndQuery, cookie));
}

/** The median and 95th percentile of the server's times, and the median CPU time; the median checked. */
function figuresOf(what: string, times: readonly ServerTime[], pick = (time: ServerTime) => time.ms): string {
  const sorted = (of: (time: ServerTime) => number) => times.map(of).sort((a, b) => a - b);
  const ms = sorted(pick);
  checkFigure(`${what}: median ms`, quantile(ms, 0.5));
  const cpu = quantile(
    sorted((time) => time.cpuMs),
    0.5,
  );
  return `${quantile(ms, 0.5).toFixed(1)} ms median, ${quantile(ms, 0.95).toFixed(1)} ms p95 (CPU ${cpu.toFixed(1)} ms)`;
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

/** The list's filter of a query string of the bench's cases, as the console reads it (src/console/message-list.ts). */
function filterOf(query: Readonly<Record<string, string>>): MessageListFilter {
  const day = (value: string | undefined, days: number): string | null =>
    value === undefined ? null : new Date(Date.parse(`${value}T00:00:00.000Z`) + days * 86_400_000).toISOString();
  return {
    // The cases' statuses are named alike in the query string and the store.
    status: (query.status as MessageListFilter['status'] | undefined) ?? null,
    channel: (query.channel as MessageListFilter['channel'] | undefined) ?? null,
    school: query.school ?? null,
    type: query.type ?? null,
    from: day(query.from, 0),
    until: day(query.to, 1),
    find: query.q ?? null,
    error: query.error ?? null,
  };
}

/** The most rows a plan may sort: those one key holds (a message id's one, a phone suffix's few), not a list's. */
const SMALL_SORT = 1_000;

/**
 * Whether a plan reads a whole table, or sorts rows where it could read them in order from an index: a
 * sort of the few rows an equality on a selective key found (PostgreSQL's choice for a message id or
 * a whole phone number, where the estimate is a handful) is not.
 */
function wasteful(plan: string): boolean {
  if (/Seq Scan|SCAN \w+$|TEMP B-TREE/m.test(plan)) return true;
  for (const sort of plan.matchAll(/Sort {2}\(.*\n(?:\s+Sort Key.*\n)?\s+-> .*rows=(\d+)/g))
    if (Number(sort[1]) > SMALL_SORT) return true;
  return false;
}

/**
 * The plans of the list's statements on the seeded store, with its statistics: the indexes each filter's
 * sources read, for the first page and one deep in the list. At full size a plan that sorts or reads a
 * whole table stops the run (test/store/message-list.test.ts pins the same on an empty store); in smoke
 * mode, where a scan of 500 rows is the cheaper plan, it is only named.
 */
async function openPlanner(
  name: string,
  options: Options,
): Promise<{
  indexes(query: Readonly<Record<string, string>>): Promise<string>;
  close(): Promise<void>;
}> {
  const compiler = compileOnly<unknown>(name === 'sqlite' ? 'sqlite' : 'postgres');
  let explain: (statement: string, parameters: readonly unknown[]) => Promise<string>;
  let close: () => Promise<void>;
  if (name === 'sqlite') {
    const db = new Database(path.join(options.dataDir, 'service.sqlite'), { readonly: true });
    explain = (statement, parameters) =>
      Promise.resolve(
        (db.prepare(`explain query plan ${statement}`).all(...parameters) as Array<{ detail: string }>)
          .map((row) => row.detail)
          .join('\n'),
      );
    close = () => {
      db.close();
      return Promise.resolve();
    };
  } else {
    const client = new Client({ connectionString: options.databaseUrl });
    await client.connect();
    await client.query(`set search_path to ${options.schema ?? 'public'}`);
    explain = async (statement, parameters) =>
      (await client.query<{ 'QUERY PLAN': string }>(`explain ${statement}`, [...parameters])).rows
        .map((row) => row['QUERY PLAN'])
        .join('\n');
    close = () => client.end();
  }
  const deep = { createdAt: '2026-04-01T00:00:00.000Z', id: 'm' };
  return {
    async indexes(query) {
      const read = new Set<string>();
      const faults: string[] = [];
      for (const page of [{ limit: 50 }, { limit: 50, before: deep }]) {
        for (const { query: statement } of messageListQueries(filterOf(query), page)) {
          const { sql, parameters } = statement.compile(compiler);
          const plan = await explain(sql, parameters);
          for (const match of plan.matchAll(/\b\w+_(?:idx|pkey)\b|sqlite_autoindex_\w+/g)) read.add(match[0]);
          if (wasteful(plan)) faults.push(`${sql}\n${plan}`);
        }
      }
      if (faults.length > 0 && !SMOKE) throw new Error(`a plan sorts or reads a whole table:\n${faults.join('\n')}`);
      return `${[...read].sort().join(', ')}${faults.length > 0 ? ` (${faults.length} plans scan or sort)` : ''}`;
    },
    close,
  };
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
    app.use(serverTimer);
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
    console.log(
      `${name}: server time of each page (the application's, from request to last byte); load average ${loadAverage()}`,
    );
    const cases = [
      ['Latin part of a name', 'hadd'],
      ['Arabic, typed without diacritics', 'محمد'],
      ['a rare word', '99999'],
      ['an id', '1054321'],
    ];
    for (const [label, q] of cases) {
      const at = `/console/students?q=${encodeURIComponent(q)}`;
      console.log(
        `${name}: students, ${label} (${JSON.stringify(q)}): page in ${figuresOf(at, await serverTimesOf(port, at, cookie))}`,
      );
    }
    if (MESSAGES > 0) {
      const seeded = Date.now();
      await seedMessages(name, options);
      // The server has closed the connections kept alive from the searches meanwhile.
      http.globalAgent.destroy();
      console.log(
        `${name}: ${MESSAGES.toLocaleString('en')} messages and ${REFUSALS.toLocaleString('en')} refused calls written in ${((Date.now() - seeded) / 1000).toFixed(1)} s; load average ${loadAverage()}`,
      );
      const list = (query: Record<string, string>): string => {
        const search = new URLSearchParams(query).toString();
        return search === '' ? '/console/messages' : `/console/messages?${search}`;
      };
      // The messages found by their own keys: a push's id (row 123,456, or 123 of a smoke run), a student's
      // (their ten messages), a phone's last digits (the login codes numbered …4324, or 499 of a smoke run).
      const pushRow = scaled(null, 123_456, 123);
      const messageId = `${((BigInt(pushRow) * 2654435761n) % 4294967296n).toString(16).padStart(8, '0')}-${pushRow}`;
      const school = 'https://school-7.bench.example';
      const lists: Array<{
        label: string;
        query: Record<string, string>;
        deep: boolean;
        none?: true;
      }> = [
        { label: 'all messages', query: {}, deep: true },
        { label: 'status sent', query: { status: 'sent' }, deep: true },
        { label: 'status dead', query: { status: 'dead' }, deep: true },
        { label: 'status uncertain', query: { status: 'uncertain' }, deep: true },
        { label: 'status refused', query: { status: 'refused' }, deep: true },
        { label: 'channel push', query: { channel: 'push' }, deep: true },
        { label: 'channel sms', query: { channel: 'sms' }, deep: true },
        { label: 'one school', query: { school }, deep: true },
        { label: 'type note (30%)', query: { type: 'note' }, deep: true },
        { label: 'type exam (2%)', query: { type: 'exam' }, deep: true },
        // A type no message has: a seek that finds nothing on its own index (migration 0018), every row without.
        { label: 'type audit (none)', query: { type: 'audit' }, deep: false, none: true },
        { label: 'a week', query: { from: '2026-03-02', to: '2026-03-08' }, deep: true },
        { label: 'dead, one school', query: { status: 'dead', school }, deep: true },
        { label: 'a student id', query: { q: String(1_000_000 + scaled(null, 4321, 7)) }, deep: false },
        { label: 'a message id', query: { q: messageId }, deep: false },
        { label: "a phone's last 4 digits", query: { q: scaled(null, '4324', '0499') }, deep: true },
        // The overview's links to a frequent error (9% of the pushes here), and an error no message has (a read
        // of every row without the last error's index of migration 0018).
        { label: 'error UNREGISTERED', query: { channel: 'push', error: 'UNREGISTERED' }, deep: true },
        { label: 'an error none has', query: { channel: 'push', error: 'NONE' }, deep: false, none: true },
      ];
      const planner = await openPlanner(name, options);
      try {
        for (const { label, query } of lists) console.log(`${name}: plan, ${label}: ${await planner.indexes(query)}`);
      } finally {
        await planner.close();
      }
      for (const { label, query, deep, none } of lists) {
        const first = list(query);
        let line = `${name}: messages, ${label}: page 1 in ${await timePage(port, first, cookie, none === true)}`;
        if (deep) {
          const deeper = await pageAt(port, first, PAGE_DEPTH, cookie);
          if (deeper.depth > 1) line += `; page ${deeper.depth} in ${await timePage(port, deeper.at, cookie)}`;
        }
        console.log(line);
      }
      for (const [label, query] of [
        ['all messages', {}],
        ['status dead', { status: 'dead' }],
      ] as const) {
        const at = list(query).replace('/console/messages', '/console/messages.csv');
        const times = await serverTimesOf(port, at, cookie);
        const firstRows = figuresOf(at, times, (time) => time.firstByteMs);
        console.log(`${name}: CSV, ${label}: first rows in ${firstRows}; all rows in ${figuresOf(at, times)}`);
      }
      console.log(`${name}: load average ${loadAverage()}`);
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
