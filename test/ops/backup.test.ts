// npm run backup (docs/operating.md#backups-and-upgrades): an online copy of
// the SQLite store while a real service keeps queuing messages, restored and
// served by a second service; and what the command refuses.
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEMO_DATA, loadDemoData, openStore, type DataSetNote } from '../../src/store';
import { backupSqliteStore, SqliteBackupError } from '../../src/store';
import { ROOT, spawnSourceService } from '../support/source-service';

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `npm run backup`'s entry point from the sources, as a user runs it. */
function runBackup(args: readonly string[], env: NodeJS.ProcessEnv): Promise<Run> {
  const child = spawn(
    process.execPath,
    ['-r', path.join(ROOT, 'test/delivery/support/register-ts.js'), path.join(ROOT, 'src/cli/backup.ts'), ...args],
    { cwd: ROOT, env: { PATH: process.env.PATH ?? '', DATABASE_URL: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

interface RunningService {
  readonly child: ChildProcess;
  readonly base: string;
}

const services: ChildProcess[] = [];
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sns-backup-'));
});
afterEach(async () => {
  await Promise.all(services.splice(0).map(stop));
  rmSync(dir, { recursive: true, force: true });
});

async function start(env: Record<string, string>): Promise<RunningService> {
  const child = spawnSourceService(env);
  services.push(child);
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((each) => each.includes('"msg":"listening on'));
      const found = line === undefined ? null : /"port":(\d+)/.exec(line);
      if (found !== null) resolve(Number(found[1]));
    });
    child.once('exit', () => reject(new Error(`the service exited:\n${output}`)));
  });
  return { child, base: `http://127.0.0.1:${port}` };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  return exited;
}

/** Enough notes for a store of several megabytes, so that the copy takes several steps. */
function bulkNotes(count: number): DataSetNote[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `bulk-${i}`,
    studentId: '1001',
    type: 'general',
    subjectId: null,
    classId: '7A',
    text: `note ${i} `.padEnd(400, 'x'),
    date: '2026-01-05T08:00:00Z',
    badge: null,
    state: 'unread',
  }));
}

test('a backup taken while the service queues messages holds every acknowledged message and serves once restored', async () => {
  const dataDir = path.join(dir, 'data');
  const seeded = await openStore({ dataDir });
  await loadDemoData(seeded.dataSet);
  await seeded.dataSet.writeDataSet({ notes: bulkNotes(20_000) });
  await seeded.lifecycle.close();

  const service = await start({ DATA_DIR: dataDir, DEMO_DATA: 'false' });
  const acknowledged: number[] = [];
  let next = 0;
  let writing = true;
  const failures: string[] = [];
  // Four callers queuing push notifications one after another, each of its own type.
  const writer = async () => {
    while (writing) {
      const n = next++;
      const res = await fetch(`${service.base}/NotificationNotes.asmx/SendNotificationType`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `id=1001&baseUrlSchool=${encodeURIComponent('https://alnoor.school.example')}&TypeNotfication=backup-${n}`,
      });
      await res.arrayBuffer();
      if (res.status === 200) acknowledged.push(n);
      else failures.push(`${n}: ${res.status}`);
    }
  };
  const writers = Array.from({ length: 4 }, writer);
  while (acknowledged.length < 50 && failures.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(failures).toEqual([]);

  const before = new Set(acknowledged);
  const copy = path.join(dir, 'copy.sqlite');
  const backup = await runBackup([copy], { DATA_DIR: dataDir });
  const duringBackup = acknowledged.length - before.size;
  writing = false;
  await Promise.all(writers);

  expect(backup).toMatchObject({ code: 0, stderr: '' });
  expect(backup.stdout).toMatch(
    /^Copied [\d,]+ pages \([\d.]+ MB\) of .*service\.sqlite to .*copy\.sqlite in [\d.]+ s/,
  );
  process.stdout.write(
    `backup while writing: ${backup.stdout.trim()} (${duringBackup} messages acknowledged meanwhile)\n`,
  );
  expect(failures).toEqual([]);
  // The writes really went on while the copy was taken.
  expect(duringBackup).toBeGreaterThan(0);
  expect(readdirSync(dir).filter((name) => name.includes('.partial'))).toEqual([]);

  const raw = new Database(copy, { readonly: true });
  try {
    expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
    const types = new Set(
      (raw.prepare('select type from push_notifications').all() as Array<{ type: string }>).map((row) => row.type),
    );
    const missing = [...before].filter((n) => !types.has(`backup-${n}`));
    expect(missing).toEqual([]);
    expect(raw.prepare('select count(*) as n from notes').get()).toEqual({ n: 20_000 + DEMO_DATA.notes!.length });
  } finally {
    raw.close();
  }
  // One file: no journal or WAL left beside the copy.
  expect(readdirSync(dir).sort()).toEqual(['copy.sqlite', 'data']);

  // Restore as docs/operating.md says: a folder of its own, the copy as service.sqlite, no stale -wal/-shm.
  const restored = path.join(dir, 'restored');
  mkdirSync(restored);
  copyFileSync(copy, path.join(restored, 'service.sqlite'));
  const token = 'restored-admin-token-0123456789';
  const again = await start({ DATA_DIR: restored, DEMO_DATA: 'false', ADMIN_TOKEN: token });
  const device = await fetch(`${again.base}/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001`);
  expect(device.status).toBe(200);
  expect(await device.text()).toContain('>demo-fcm-token-1001</string>');
  const outbox = await fetch(`${again.base}/admin/api/v1/outbox/push?limit=1`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(outbox.status).toBe(200);
  const { total } = (await outbox.json()) as { total: number };
  expect(total).toBeGreaterThanOrEqual(before.size);
});

describe('the command', () => {
  async function seededStore(): Promise<string> {
    const dataDir = path.join(dir, 'data');
    const store = await openStore({ dataDir });
    await loadDemoData(store.dataSet);
    await store.lifecycle.close();
    return dataDir;
  }

  it('keeps an existing FILE unless --force, and resolves FILE from the folder it was run from', async () => {
    const dataDir = await seededStore();
    const env = { DATA_DIR: dataDir, INIT_CWD: dir, npm_lifecycle_event: 'backup' };
    writeFileSync(path.join(dir, 'copy.sqlite'), 'precious');
    let result = await runBackup(['copy.sqlite'], env);
    expect(result).toMatchObject({
      code: 1,
      stdout: '',
      stderr: expect.stringContaining('pass --force to replace it'),
    });
    expect(statSync(path.join(dir, 'copy.sqlite')).size).toBe('precious'.length);

    result = await runBackup(['--force', 'copy.sqlite'], env);
    expect(result).toMatchObject({ code: 0, stdout: expect.stringContaining(path.join(dir, 'copy.sqlite')) });
    const copy = new Database(path.join(dir, 'copy.sqlite'), { readonly: true });
    try {
      expect(copy.prepare('select count(*) as n from students').get()).toEqual({ n: DEMO_DATA.students!.length });
    } finally {
      copy.close();
    }
    expect(existsSync(path.join(ROOT, 'copy.sqlite'))).toBe(false);
  });

  it('sends PostgreSQL to pg_dump with exit code 2, and refuses a missing store or folder', async () => {
    const dataDir = path.join(dir, 'nothing-here');
    let result = await runBackup(['x.sqlite'], { DATA_DIR: dataDir, DATABASE_URL: 'postgres://127.0.0.1:1/none' });
    expect(result).toMatchObject({ code: 2, stderr: expect.stringContaining('pg_dump') });
    result = await runBackup([path.join(dir, 'x.sqlite')], { DATA_DIR: dataDir });
    expect(result).toMatchObject({ code: 1, stderr: expect.stringContaining('There is no store at') });
    expect(existsSync(dataDir)).toBe(false);
    const seeded = await seededStore();
    result = await runBackup([path.join(dir, 'no-such-folder', 'x.sqlite')], { DATA_DIR: seeded });
    expect(result).toMatchObject({ code: 1, stderr: expect.stringContaining('does not exist') });
    expect(await runBackup([], { DATA_DIR: seeded })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Usage'),
    });
  });

  it('copies what is committed in the WAL and not yet in the main file', async () => {
    const dataDir = path.join(dir, 'data');
    const store = await openStore({ dataDir });
    try {
      await loadDemoData(store.dataSet);
      await store.dataSet.writeDataSet({ devices: [{ id: 'dev-wal', token: 'only-in-the-wal' }] });
      // The store is still open: its last commits sit in the WAL.
      expect(statSync(path.join(dataDir, 'service.sqlite-wal')).size).toBeGreaterThan(0);
      const copy = path.join(dir, 'copy.sqlite');
      const result = await backupSqliteStore({ dataDir, destination: copy, force: false });
      expect(result.pages).toBeGreaterThan(0);
      const raw = new Database(copy, { readonly: true });
      try {
        expect(raw.prepare("select push_token from devices where id = 'dev-wal'").get()).toEqual({
          push_token: 'only-in-the-wal',
        });
      } finally {
        raw.close();
      }
    } finally {
      await store.lifecycle.close();
    }
  });

  it('leaves nothing under FILE when the copy fails its integrity check', async () => {
    const dataDir = await seededStore();
    const raw = new Database(path.join(dataDir, 'service.sqlite'));
    const page = raw.prepare("select rootpage from sqlite_schema where name = 'sqlite_autoindex_devices_1'").get() as {
      rootpage: number;
    };
    raw.close();
    expect(page.rootpage).toBeGreaterThan(1);
    const file = path.join(dataDir, 'service.sqlite');
    const bytes = readFileSync(file);
    const pageSize = bytes.readUInt16BE(16);
    // Zero the devices' key index past its page header: it no longer lists the devices, which integrity_check reports.
    bytes.fill(0, (page.rootpage - 1) * pageSize + 8, page.rootpage * pageSize);
    writeFileSync(file, bytes);

    const copy = path.join(dir, 'copy.sqlite');
    const failure = backupSqliteStore({ dataDir, destination: copy, force: false });
    await expect(failure).rejects.toThrow(SqliteBackupError);
    await expect(failure).rejects.toThrow(/The copy failed its integrity check: /);
    expect(readdirSync(dir).sort()).toEqual(['data']);
  });
});
