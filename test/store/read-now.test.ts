// SQLite's hot reads run at once on the connection, outside Kysely's
// executor (ReadNow in src/store/connection/sqlite.ts, core.read in
// src/store/core.ts): they must answer what the ordinary path answers, and
// never see the work of a transaction that is still open on the connection.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kysely } from 'kysely';
import { openSqlite, type ReadNow } from '../../src/store/connection/sqlite';
import { createStoreCore, type StoreCore } from '../../src/store/core';
import type { StoreDatabase } from '../../src/store/database';
import { migrateToLatest } from '../../src/store/migrations/migrate';

describe('reads at once on SQLite', () => {
  let dir: string;
  let db: Kysely<StoreDatabase>;
  let core: StoreCore;
  let taken: number;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'read-now-'));
    const sqlite = openSqlite(dir);
    taken = 0;
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
});
