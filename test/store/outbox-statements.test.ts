// The worker's batch statements on SQLite (src/store/outbox/outbox-claims.ts)
// have one text whatever the batch's size, so that the connection's statement
// cache (src/store/connection/sqlite.ts) prepares each once instead of once per
// size (docs/delivery.md#cpu-per-push). What they write is checked on both
// stores by test/delivery/outbox-claims.test.ts.
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import { completeSent, pushClaimStatements, recordAttempts } from '../../src/store/outbox/outbox-claims';
import type { StoreDatabase } from '../../src/store/database';
import { compileOnly } from '../support/compile-only';
import { sqliteVariant, type TestStore } from '../support/stores';

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

// The push claim is compiled once per store; each claim only binds its values
// (docs/delivery.md#cpu-per-push). That it claims what it should, at most its
// limit, is test/delivery/outbox-claims.test.ts's, on both stores.
describe.each(['sqlite', 'postgres'] as const)('the push claim on %s', (dialect) => {
  const statements = pushClaimStatements(compileOnly<StoreDatabase>(dialect), dialect);
  const claim = dialect === 'postgres' ? statements.claimWithDevices : statements.claim;
  const request = (n: number) => ({
    limit: n,
    now: `2030-01-0${n}T00:00:00.000Z`,
    leaseUntil: `2030-02-0${n}T00:00:00.000Z`,
    claimToken: `token-${n}`,
  });

  it('keeps one text and binds the values of each request, the limit as a number', () => {
    const [one, two] = [claim(request(1)), claim(request(2))];
    expect(two.sql).toBe(one.sql);
    expect(one.parameters).toEqual(expect.arrayContaining([1, request(1).now, request(1).leaseUntil, 'token-1']));
    expect(two.parameters).toEqual(expect.arrayContaining([2, request(2).now, request(2).leaseUntil, 'token-2']));
    expect(JSON.stringify([one.parameters, two.parameters])).not.toContain('store-parameter');
  });
});

describe('the worker batch statements on a SQLite store', () => {
  let ctx: TestStore;
  beforeEach(async () => {
    ctx = await sqliteVariant().create();
  });
  afterEach(() => ctx.cleanup());

  const planOf = async (statement: { sql: string; parameters: readonly unknown[] }) =>
    (await ctx.query<{ detail: string }>(`explain query plan ${statement.sql}`, [...statement.parameters]))
      .map((row) => row.detail)
      .join('\n');

  // Read the other way round (every sending row, the whole batch for each),
  // a batch costs the rows under way times its size.
  it('read the batch once and find each message by its id', async () => {
    const { db, statements } = recordingDb();
    await completeSent(db, 'sqlite', 'push', entries(3), '2030-01-01T00:00:00.000Z');
    await recordAttempts(db, 'sqlite', 'sms', [{ id: 'm0', code: null }], '2030-01-01T00:00:00.000Z');
    const [sent, attempts] = await Promise.all(statements.map(planOf));
    expect(sent).toMatch(/^SCAN json_each[^\n]*\nSEARCH t USING INDEX sqlite_autoindex_push_notifications_1 \(id=\?\)/);
    expect(attempts).toMatch(
      /^SCAN json_each[^\n]*\nSEARCH t USING INDEX sqlite_autoindex_auth_code_messages_1 \(id=\?\)/,
    );
    await db.destroy();
  });
});
