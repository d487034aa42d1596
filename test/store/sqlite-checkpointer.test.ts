// SQLite's WAL checkpoints run on a thread of their own, not inside the
// service connection's commits (src/store/connection/sqlite-checkpointer.ts):
// a commit that passes SQLite's usual 1,000 pages no longer copies the log
// into the database file itself; the thread does, shortly after; and the
// store's connection, closed last, still removes the log.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kysely, sql } from 'kysely';
import { openSqlite, SQLITE_FILE_NAME } from '../../src/store/connection/sqlite';
import { FALLBACK_AUTOCHECKPOINT_PAGES } from '../../src/store/connection/sqlite-checkpointer';

const MIB = 1024 * 1024;

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}

describe('WAL checkpoints on their own thread', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'checkpointer-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves the commits alone and copies the log into the file shortly after', async () => {
    const db = new Kysely<{ blobs: { id: number; data: Buffer } }>({ dialect: openSqlite(dir).dialect });
    const file = path.join(dir, SQLITE_FILE_NAME);
    try {
      const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
      expect(rows[0]?.wal_autocheckpoint).toBe(FALLBACK_AUTOCHECKPOINT_PAGES);
      await sql`create table blobs (id integer primary key, data blob)`.execute(db);
      // 8 MiB: twice past the 1,000 pages at which the connection would checkpoint in its own commit.
      for (let i = 0; i < 8; i++)
        await db
          .insertInto('blobs')
          .values({ id: i, data: Buffer.alloc(MIB, i) })
          .execute();
      // Only a checkpoint writes the pages into the database file; the thread's does so within a few ticks.
      expect(await until(() => statSync(file).size >= 8 * MIB, 5_000)).toBe(true);
    } finally {
      await db.destroy();
    }
    expect(existsSync(`${file}-wal`)).toBe(false);
  });
});
