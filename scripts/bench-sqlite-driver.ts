// Which SQLite driver: better-sqlite3 (what the store uses) or Node's built-in
// node:sqlite, on the statements the service runs most, in one process, on
// the same file settings as src/store/connection/sqlite.ts (WAL, synchronous
// NORMAL). Each case runs both drivers in alternating rounds; read the ratio
// (node:sqlite time / better-sqlite3 time). docs/architecture.md#sqlite-driver.
// Run: node -r ./test/delivery/support/register-ts.js scripts/bench-sqlite-driver.ts (Node 24 or newer).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import Database from 'better-sqlite3';
import { checkFigure, median, scaled } from './bench-support';

const STUDENTS = scaled('BENCH_SQLITE_STUDENTS', 5000, 50);
const ROUNDS = scaled('BENCH_SQLITE_ROUNDS', 5, 1);
// How many times each case runs its statement in a round.
const READS = scaled(null, 20_000, 1000);
const LISTS = scaled(null, 20, 2);
const TRANSACTIONS = scaled(null, 200, 2);
const KINDS = ['better-sqlite3', 'node:sqlite'] as const;
type Kind = (typeof KINDS)[number];

/** What the cases need of either driver: both have these, with the same meaning. */
interface Driver {
  exec(sql: string): unknown;
  prepare(sql: string): {
    get(...values: Array<string | number>): unknown;
    all(...values: Array<string | number>): unknown[];
    run(...values: Array<string | number>): unknown;
  };
  close(): unknown;
}

/** better-sqlite3 with its statements' parameters typed as node:sqlite's are; the statements are its own. */
function betterSqlite3(file: string): Driver {
  const db = new Database(file);
  return {
    exec: (sql) => db.exec(sql),
    prepare: (sql) => db.prepare<Array<string | number>>(sql),
    close: () => db.close(),
  };
}

function open(kind: Kind, file: string): Driver {
  const db: Driver = kind === 'better-sqlite3' ? betterSqlite3(file) : new DatabaseSync(file);
  for (const pragma of ['journal_mode = WAL', 'busy_timeout = 5000', 'foreign_keys = ON', 'synchronous = NORMAL'])
    db.exec(`PRAGMA ${pragma}`);
  db.exec(`CREATE TABLE IF NOT EXISTS students (id TEXT PRIMARY KEY, school TEXT NOT NULL, full_name TEXT NOT NULL,
             device_id TEXT, active INTEGER NOT NULL);
           CREATE INDEX IF NOT EXISTS students_school ON students (school, id);
           CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY, channel TEXT NOT NULL, payload TEXT NOT NULL,
             status TEXT NOT NULL, due_at INTEGER NOT NULL);`);
  return db;
}

function seed(db: Driver): void {
  const insert = db.prepare('INSERT OR REPLACE INTO students VALUES (?, ?, ?, ?, 1)');
  db.exec('BEGIN');
  for (let i = 0; i < STUDENTS; i++)
    insert.run(String(100000 + i), 'https://bench.school.example', `طالب رقم ${i}`, `dev-${i}`);
  db.exec('COMMIT');
}

const cases: Record<string, (db: Driver) => void> = {
  [`point read (GetTokenDevice-like), ${READS.toLocaleString('en-US')}`]: (db) => {
    const s = db.prepare('SELECT id, full_name, device_id FROM students WHERE id = ?');
    for (let i = 0; i < READS; i++) s.get(String(100000 + (i % STUDENTS)));
  },
  [`list of ${STUDENTS} (GetStudentSchool-like), ${LISTS}`]: (db) => {
    const s = db.prepare('SELECT id, full_name, device_id, active FROM students WHERE school = ? ORDER BY id');
    for (let i = 0; i < LISTS; i++) s.all('https://bench.school.example');
  },
  [`outbox insert, 100 a transaction, ${(TRANSACTIONS * 100).toLocaleString('en-US')}`]: (db) => {
    const s = db.prepare('INSERT INTO outbox (channel, payload, status, due_at) VALUES (?, ?, ?, ?)');
    for (let t = 0; t < TRANSACTIONS; t++) {
      db.exec('BEGIN');
      for (let i = 0; i < 100; i++) s.run('push', '{"token":"x","title":"t"}', 'queued', Date.now());
      db.exec('COMMIT');
    }
  },
};

const dir = mkdtempSync(path.join(os.tmpdir(), 'sqlite-driver-'));
try {
  const dbs = Object.fromEntries(
    KINDS.map((kind) => {
      const db = open(kind, path.join(dir, `${kind.replace(':', '-')}.sqlite`));
      seed(db);
      return [kind, db];
    }),
  ) as Record<Kind, Driver>;
  console.log(`SQLite drivers on Node ${process.version}, ${STUDENTS} students, ${ROUNDS} rounds (ms per round, CPU)`);
  console.log('| case | better-sqlite3 ms | node:sqlite ms | ratio node:sqlite / better-sqlite3 |');
  console.log('|---|---|---|---|');
  for (const [name, run] of Object.entries(cases)) {
    const times: Record<Kind, number[]> = { 'better-sqlite3': [], 'node:sqlite': [] };
    for (let r = 0; r < ROUNDS; r++) {
      for (const kind of r % 2 === 0 ? KINDS : [...KINDS].reverse()) {
        const before = process.cpuUsage();
        run(dbs[kind]);
        const used = process.cpuUsage(before);
        times[kind].push((used.user + used.system) / 1000);
      }
    }
    const b = checkFigure(`${name}: better-sqlite3 ms`, median(times['better-sqlite3']));
    const n = checkFigure(`${name}: node:sqlite ms`, median(times['node:sqlite']));
    console.log(`| ${name} | ${b.toFixed(1)} | ${n.toFixed(1)} | ${(n / b).toFixed(2)} |`);
  }
  for (const db of Object.values(dbs)) db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
