// SQLite's hot reads run at once on the connection, outside Kysely's
// executor (ReadNow in src/store/connection/sqlite.ts, core.read in
// src/store/core.ts): they must answer what the ordinary path answers, and
// never see the work of a transaction that is still open on the connection.
// Writes at once (WriteNow, core.write) likewise: committed whole or not at
// all, and never inside another transaction.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kysely } from 'kysely';
import Database from 'better-sqlite3';
import { openSqlite, SQLITE_FILE_NAME, type ReadNow, type WriteNow } from '../../src/store/connection/sqlite';
import { createStoreCore, type StoreCore } from '../../src/store/core';
import type { StoreDatabase } from '../../src/store/database';
import { migrateToLatest } from '../../src/store/migrations/migrate';

describe('reads at once on SQLite', () => {
  let dir: string;
  let db: Kysely<StoreDatabase>;
  let core: StoreCore;
  let taken: number;
  let written: number;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'read-now-'));
    const sqlite = openSqlite(dir);
    taken = 0;
    written = 0;
    const countedWrite: WriteNow = (queries) => {
      const done = sqlite.writeNow(queries);
      if (done) written++;
      return done;
    };
    const counted: ReadNow = (query) => {
      const rows = sqlite.readNow(query);
      if (rows !== null) taken++;
      return rows;
    };
    db = new Kysely<StoreDatabase>({ dialect: sqlite.dialect });
    await migrateToLatest(db, 'sqlite', undefined);
    await db
      .insertInto('devices')
      .values({ id: 'd1', push_token: 'original', platform: 'android', updated_at: '2030-01-01T00:00:00.000Z' })
      .execute();
    core = createStoreCore(
      db,
      'sqlite',
      () => new Date(),
      () => db.destroy(),
      null,
      counted,
      countedWrite,
    );
  });

  afterEach(async () => {
    await core.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const token = () => db.selectFrom('devices').select('push_token').where('id', '=', 'd1').compile();

  it('answers outside a transaction without the executor, as the executor would', async () => {
    expect(await core.read(token())).toEqual([{ push_token: 'original' }]);
    expect(taken).toBe(1);
    expect(await core.read(token())).toEqual((await db.executeQuery(token())).rows);
  });

  it('waits for a transaction open on the connection and never sees its uncommitted work', async () => {
    let during: Promise<{ push_token: string | null }[]> | undefined;
    await expect(
      core.writeTransaction(async (trx) => {
        await trx.updateTable('devices').set({ push_token: 'uncommitted' }).where('id', '=', 'd1').execute();
        during = core.read(token());
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await during).toEqual([{ push_token: 'original' }]);
    expect(taken).toBe(0);
  });

  it('takes the ordinary path once the store is closing, and is refused there', async () => {
    const closed = core.close();
    await expect(core.read(token())).rejects.toMatchObject({ name: 'StoreError', kind: 'unavailable' });
    await closed;
    expect(taken).toBe(0);
  });

  it('gives a failing statement to the ordinary path, which reports it as a store error', async () => {
    const bad = { ...token(), sql: 'select push_token from no_such_table' };
    await expect(core.read(bad)).rejects.toMatchObject({ name: 'StoreError' });
  });

  const setToken = (value: string) =>
    db.updateTable('devices').set({ push_token: value }).where('id', '=', 'd1').compile();
  const addDevice = (id: string) =>
    db
      .insertInto('devices')
      .values({ id, push_token: 't', platform: 'ios', updated_at: '2030-01-01T00:00:00.000Z' })
      .compile();

  it('writes at once outside a transaction, all of the statements in one commit', async () => {
    await core.write([setToken('at once'), addDevice('d2')]);
    expect(written).toBe(1);
    expect(await core.read(token())).toEqual([{ push_token: 'at once' }]);
    expect(await db.selectFrom('devices').select('id').where('id', '=', 'd2').execute()).toHaveLength(1);
  });

  it('waits for a transaction open on the connection, then writes on the ordinary path', async () => {
    let during: Promise<void> | undefined;
    await core.writeTransaction(async (trx) => {
      await trx.updateTable('devices').set({ push_token: 'first' }).where('id', '=', 'd1').execute();
      during = core.write([setToken('second')]);
      await new Promise((resolve) => setTimeout(resolve, 20));
    });
    await during;
    expect(written).toBe(0);
    expect(await core.read(token())).toEqual([{ push_token: 'second' }]);
  });

  it('leaves nothing written when a statement fails, and the ordinary path reports it as a store error', async () => {
    const bad = { ...addDevice('d3'), sql: 'insert into no_such_table (id) values (?)' };
    await expect(core.write([setToken('half'), bad])).rejects.toMatchObject({ name: 'StoreError' });
    expect(written).toBe(0);
    expect(await core.read(token())).toEqual([{ push_token: 'original' }]);
  });

  it('refuses writes once the store is closing', async () => {
    const closed = core.close();
    await expect(core.write([setToken('late')])).rejects.toMatchObject({ name: 'StoreError', kind: 'unavailable' });
    await closed;
    expect(written).toBe(0);
  });

  describe('reads in one turn share a read transaction (docs/design.md#reads-share-a-turn-sqlite)', () => {
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    let other: Database.Database;
    beforeEach(() => {
      // Another program on the same file: the delivery worker, an import.
      other = new Database(path.join(dir, SQLITE_FILE_NAME));
    });
    afterEach(() => other.close());
    const readAtOnce = (): unknown => {
      const rows = core.readSettled(token());
      if (rows instanceof Promise) throw new Error('not read at once');
      return rows;
    };

    it("keeps one snapshot until the turn ends, then sees another program's commit", async () => {
      expect(readAtOnce()).toEqual([{ push_token: 'original' }]);
      other.prepare("update devices set push_token = 'changed' where id = 'd1'").run();
      expect(readAtOnce()).toEqual([{ push_token: 'original' }]);
      await nextTurn();
      expect(readAtOnce()).toEqual([{ push_token: 'changed' }]);
    });

    it('is ended by a write at once in the same turn, which then commits and is read back', async () => {
      expect(readAtOnce()).toEqual([{ push_token: 'original' }]);
      await core.write([setToken('written')]);
      expect(written).toBe(1);
      expect(readAtOnce()).toEqual([{ push_token: 'written' }]);
    });

    it('is ended by a statement on the ordinary path, so that a transaction can begin in the same turn', async () => {
      expect(readAtOnce()).toEqual([{ push_token: 'original' }]);
      await core.writeTransaction(async (trx) => {
        await trx.updateTable('devices').set({ push_token: 'in a transaction' }).where('id', '=', 'd1').execute();
      });
      expect(readAtOnce()).toEqual([{ push_token: 'in a transaction' }]);
    });

    it("never holds back another program's write, nor its checkpoint, past the turn", async () => {
      expect(readAtOnce()).toEqual([{ push_token: 'original' }]);
      await nextTurn();
      other.pragma('busy_timeout = 0');
      other.prepare("update devices set push_token = 'after' where id = 'd1'").run();
      // A read mark left behind would stop a full checkpoint from reaching the log's end.
      const [result] = other.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
      expect(result.busy).toBe(0);
    });
  });
});
