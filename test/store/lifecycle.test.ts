import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore, StoreError, type OpenedStore } from '../../src/store';
import { MIGRATION_NAMES, storeVariants, type TestStore } from '../support/stores';
import { SCHOOL_A, STORE_FIXTURE } from './store-fixture';

const RELEASED_MIGRATIONS = [
  '0001_initial',
  '0002_delivery',
  '0003_delivery_scale',
  '0004_access',
  '0005_outbox_indexes',
  '0006_audit_bounds',
];

describe.each(storeVariants())('store lifecycle on $name', (variant) => {
  let ctx: TestStore;

  beforeEach(async () => {
    ctx = await variant.create();
  });
  afterEach(() => ctx.cleanup());

  it('reports its dialect, answers ping, and starts empty', async () => {
    expect(ctx.store.access.dialect).toBe(variant.name);
    expect(await ctx.store.lifecycle.ping()).toBe(true);
    expect(await ctx.store.dataSet.isEmpty()).toBe(true);
    await ctx.store.dataSet.writeDataSet({ schools: [{ baseUrl: SCHOOL_A, name: 'A' }] });
    expect(await ctx.store.dataSet.isEmpty()).toBe(false);
  });

  it('runs migrations once: reopening keeps data and applies nothing twice', async () => {
    await ctx.store.dataSet.writeDataSet(STORE_FIXTURE);
    await ctx.store.lifecycle.close();
    const again = await ctx.reopen();
    const third = await ctx.reopen();
    expect(await again.records.getDeviceToken('dev-1')).toBe('tok-1');
    expect(await third.records.listAuditNotes('MATH', '7A')).toHaveLength(4);
    const applied = (await ctx.query<{ name: string }>('select name from kysely_migration order by name')).map(
      (row) => row.name,
    );
    expect(applied).toEqual(MIGRATION_NAMES);
    // A released migration keeps its name and place: deployed databases know it by them.
    expect(applied.slice(0, RELEASED_MIGRATIONS.length)).toEqual(RELEASED_MIGRATIONS);
  });

  it('lets stores opened at the same time share the database and close independently', async () => {
    const [one, two] = await Promise.all([ctx.reopen(), ctx.reopen()]);
    await Promise.all([
      one.dataSet.writeDataSet({ devices: [{ id: 'd', token: 'shared' }] }),
      two.dataSet.writeDataSet({ devices: [{ id: 'e', token: 'other' }] }),
      ctx.store.records.markNotesRead('1002', 'audit'),
    ]);
    expect(await two.records.getDeviceToken('d')).toBe('shared');
    await one.lifecycle.close();
    expect(await two.records.getDeviceToken('e')).toBe('other');
    expect(await ctx.store.lifecycle.ping()).toBe(true);
  });

  describe('after close()', () => {
    let closed: OpenedStore;

    beforeEach(async () => {
      await ctx.store.dataSet.writeDataSet(STORE_FIXTURE);
      closed = ctx.store;
      await closed.lifecycle.close();
    });

    it('rejects every method with StoreError "unavailable"', async () => {
      const calls: Array<Promise<unknown>> = [
        // Promises once closed (at once only when SQLite read them at once).
        Promise.resolve(closed.records.listStudentsOfSchool(SCHOOL_A, '1')),
        Promise.resolve(closed.records.getDeviceToken('dev-1')),
        Promise.resolve(closed.records.listAuditNotes('MATH', '7A')),
        closed.records.markNotesRead('1002', 'audit'),
        closed.records.listAbsencesMarkSeen('1002'),
        closed.records.findStudent('1002'),
        closed.outbox.enqueuePushNotification({
          deviceId: 'd',
          studentId: 's',
          type: 't',
          title: '',
          body: '',
          data: {},
        }),
        closed.outbox.admitAuthCode({ phone: '+963944123456', code: '1234', callerAddress: null }, []),
        closed.dataSet.writeDataSet(STORE_FIXTURE),
        closed.admin.listPushNotifications(),
        closed.admin.listAuthCodeMessages(),
        closed.dataSet.isEmpty(),
      ];
      for (const call of calls) {
        await expect(call).rejects.toBeInstanceOf(StoreError);
        await expect(call).rejects.toMatchObject({ kind: 'unavailable', message: 'The data store is unavailable.' });
      }
    });

    it('answers ping with false and can be closed again', async () => {
      expect(await closed.lifecycle.ping()).toBe(false);
      await expect(closed.lifecycle.close()).resolves.toBeUndefined();
    });

    it('lets calls already under way finish, and refuses new ones', async () => {
      const store = await ctx.reopen();
      // Promises on PostgreSQL; on SQLite the tokens themselves, read before the close began.
      const inFlight = Array.from({ length: 25 }, () => Promise.resolve(store.records.getDeviceToken('dev-1')));
      const closing = store.lifecycle.close();
      await expect(store.records.getDeviceToken('dev-1')).rejects.toBeInstanceOf(StoreError);
      expect(await Promise.all(inFlight)).toEqual(Array(25).fill('tok-1'));
      await closing;
    });
  });

  if (variant.name === 'postgres') {
    it('sorts text by code point whatever the database locale', async () => {
      const rows = await ctx.query<{ collation_name: string }>(
        "select collation_name from information_schema.columns where table_schema = current_schema() and table_name = 'students' and column_name = 'full_name'",
      );
      expect(rows).toEqual([{ collation_name: 'C' }]);
    });
  }
});

describe('openStore', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sns-open-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a missing data folder and the SQLite file in it', async () => {
    const dataDir = path.join(dir, 'nested', 'data');
    const store = await openStore({ dataDir, databaseUrl: '  ' });
    try {
      expect(store.access.dialect).toBe('sqlite');
      expect(existsSync(path.join(dataDir, 'service.sqlite'))).toBe(true);
    } finally {
      await store.lifecycle.close();
    }
  });

  it('rejects with StoreError "unavailable" when the SQLite file cannot be opened', async () => {
    const dataDir = path.join(dir, 'service.sqlite-is-a-folder');
    // A folder where the database file should be.
    await openStore({ dataDir: path.join(dataDir, 'service.sqlite') }).then((store) => store.lifecycle.close());
    await expect(openStore({ dataDir })).rejects.toMatchObject({ name: 'StoreError', kind: 'unavailable' });
  });

  it('rejects with StoreError "unavailable" when PostgreSQL refuses the connection', async () => {
    const attempt = openStore({ dataDir: dir, databaseUrl: 'postgres://postgres@127.0.0.1:1/none' });
    await expect(attempt).rejects.toBeInstanceOf(StoreError);
    await expect(attempt).rejects.toMatchObject({ kind: 'unavailable', message: 'The data store is unavailable.' });
  });

  it('refuses a schema name that would need quoting', async () => {
    await expect(
      openStore({ dataDir: dir, databaseUrl: 'postgres://x@127.0.0.1:1/x', schema: 'Bad-Name' }),
    ).rejects.toThrow(/Invalid PostgreSQL schema name/);
  });
});
