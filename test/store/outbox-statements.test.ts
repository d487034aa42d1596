// The worker's batch statements on SQLite (src/store/outbox/outbox-claims.ts)
// have one text whatever the batch's size, so that the connection's statement
// cache (src/store/connection/sqlite.ts) prepares each once instead of once per
// size (docs/delivery.md#cpu-per-push). What they write is checked on both
// stores by test/delivery/outbox-claims.test.ts.
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import { completeSent, recordAttempts } from '../../src/store/outbox/outbox-claims';
import type { StoreDatabase } from '../../src/store/database';

function recordingDb(): { db: Kysely<StoreDatabase>; statements: { sql: string; parameters: readonly unknown[] }[] } {
  const statements: { sql: string; parameters: readonly unknown[] }[] = [];
  const db = new Kysely<StoreDatabase>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new SqliteIntrospector(k),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
    log: (event) => {
      if (event.level === 'query') statements.push({ sql: event.query.sql, parameters: event.query.parameters });
    },
  });
  return { db, statements };
}

const entries = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: `m${i}`,
    claimToken: `c${i}`,
    providerMessageId: i % 2 ? null : `p${i}`,
  }));

describe('the worker batch statements on SQLite', () => {
  it('record sent results and attempts with the same text for 1 and 50 messages, the rows in one parameter', async () => {
    const { db, statements } = recordingDb();
    for (const n of [1, 50]) {
      await completeSent(db, 'sqlite', 'push', entries(n), '2030-01-01T00:00:00.000Z');
      await recordAttempts(
        db,
        'sqlite',
        'push',
        entries(n).map((e) => ({ id: e.id, code: e.providerMessageId })),
        '2030-01-01T00:00:00.000Z',
      );
    }
    expect(statements).toHaveLength(4);
    expect(statements[2].sql).toBe(statements[0].sql);
    expect(statements[3].sql).toBe(statements[1].sql);
    // The rows travel as JSON, nulls included.
    expect(statements[2].parameters).toContain(
      JSON.stringify(entries(50).map((e) => [e.id, e.claimToken, e.providerMessageId])),
    );
    expect(statements[0].sql).toContain('json_each');
    await db.destroy();
  });
});
