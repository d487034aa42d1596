// Backing up PostgreSQL as docs/operating.md#backups-and-upgrades says:
// pg_dump -Fc of the store's schema while the store keeps queuing messages,
// pg_restore into a fresh database, and the store opened there finds every
// record, every message acknowledged before the dump began, and its
// migrations already applied. Runs when TEST_DATABASE_URL is set; pg_dump
// and pg_restore must then be installed (the postgresql-client package).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { openStore, type OpenedStore } from '../../src/store';
import { MIGRATION_NAMES, describeWithPostgres, queueAuthCode } from '../support/stores';
import { STORE_FIXTURE } from './store-fixture';

/** The newest client of /usr/lib/postgresql/N/bin (Debian's layout), else the one on PATH. */
function postgresTool(name: 'pg_dump' | 'pg_restore'): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((version) => existsSync(path.join(root, version, 'bin', name)))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return versions.length > 0 ? path.join(root, versions[0], 'bin', name) : name;
}

/** Runs a client tool without holding the event loop (the store keeps writing meanwhile); its stdout. */
function run(tool: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(tool, args, { encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error === null) resolve(stdout);
      else if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        reject(new Error(`${tool} is not installed: install the postgresql-client package.`));
      else reject(new Error(`${tool} ${args.join(' ')} failed:\n${stderr}`));
    });
  });
}

describeWithPostgres('pg_dump and pg_restore of a running store', (databaseUrl) => {
  const url = databaseUrl;
  const schema = `dump_test_${randomBytes(6).toString('hex')}`;
  const database = `restore_test_${randomBytes(6).toString('hex')}`;
  const restoredUrl = (() => {
    const parsed = new URL(url);
    parsed.pathname = `/${database}`;
    return parsed.toString();
  })();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sns-pg-dump-'));
  const stores: OpenedStore[] = [];

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.lifecycle.close()));
    const admin = new Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.query(`drop database if exists ${database}`);
    } finally {
      await admin.end();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('restores into a fresh database every record and every message acknowledged before the dump', async () => {
    const pgDump = postgresTool('pg_dump');
    const pgRestore = postgresTool('pg_restore');
    const client = (await run(pgDump, ['--version'])).trim();
    const admin = new Client({ connectionString: url });
    await admin.connect();
    let server: string;
    try {
      server = (await admin.query<{ v: string }>("select current_setting('server_version') as v")).rows[0].v;
    } finally {
      await admin.end();
    }
    // pg_dump refuses a server newer than itself; say which is which.
    const clientMajor = Number(/(\d+)(\.\d+)*/.exec(client)?.[1]);
    expect({ client, server, clientAtLeastServer: clientMajor >= Number(server.split('.')[0]) }).toMatchObject({
      clientAtLeastServer: true,
    });

    const store = await openStore({ databaseUrl: url, schema, dataDir: dir });
    stores.push(store);
    await store.dataSet.writeDataSet(STORE_FIXTURE);
    await store.access.insertAuditEntries([
      {
        at: '2030-01-01T10:00:00.000Z',
        address: '10.0.0.1',
        user: 'gateway',
        endpoint: 'NotificationNotes.asmx',
        operation: 'GetStudentSchool',
        subjectKind: 'school',
        subject: 'https://alnoor.school.example',
        outcome: 'allowed',
        reason: null,
        subjectLength: null,
        subjectSha256: null,
        omitted: null,
      },
    ]);
    const push = (n: number) =>
      store.outbox.enqueuePushNotification({
        deviceId: 'dev-1',
        studentId: '1001',
        type: `dump-${n}`,
        title: 'عنوان',
        body: 'body',
        data: { n: String(n) },
      });
    const acknowledged = new Set<string>();
    for (let n = 0; n < 200; n++) acknowledged.add(await push(n));
    const code = await queueAuthCode(store, { phone: '+963944123456', code: '1234', callerAddress: '10.0.0.2' });

    // The dump runs while the store keeps queuing: pg_dump reads one snapshot.
    let writing = true;
    let n = 200;
    const writer = (async () => {
      while (writing) await push(n++);
    })();
    const file = path.join(dir, 'store.dump');
    const during = { before: 0, after: 0 };
    try {
      during.before = n;
      await run(pgDump, ['-Fc', '-n', schema, '-f', file, url]);
      during.after = n;
    } finally {
      writing = false;
      await writer;
    }

    const fresh = new Client({ connectionString: url });
    await fresh.connect();
    try {
      await fresh.query(`create database ${database}`);
    } finally {
      await fresh.end();
    }
    await run(pgRestore, ['--no-owner', '-d', restoredUrl, file]);
    // The writes really went on while the dump ran.
    expect(during.after).toBeGreaterThan(during.before);

    const restored = await openStore({ databaseUrl: restoredUrl, schema, dataDir: dir });
    stores.push(restored);
    // The migration table came along: nothing ran again, nothing is pending.
    expect(await restored.lifecycle.migrationStatus()).toEqual({
      current: true,
      applied: MIGRATION_NAMES,
      pending: [],
      unknown: [],
    });
    expect(await restored.dataSet.readDataSet()).toEqual(await store.dataSet.readDataSet());
    const pushes = new Set((await restored.admin.listPushNotifications()).map((row) => row.id));
    expect([...acknowledged].filter((id) => !pushes.has(id))).toEqual([]);
    expect(await restored.admin.getOutboxMessage('sms', code)).toMatchObject({
      item: { code: '1234', phone: '+963944123456' },
    });
    expect((await restored.admin.listAuditEntries({ limit: 10, offset: 0 })).items).toEqual(
      (await store.admin.listAuditEntries({ limit: 10, offset: 0 })).items,
    );
    expect(await restored.records.getDeviceToken('dev-1')).toBe(await store.records.getDeviceToken('dev-1'));
  });
});
