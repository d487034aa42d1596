// The event worker's statements on SQLite (src/store/outbox/events.ts): given
// a list of ids, they read the rows by primary key. With the status in
// their WHERE as it was, SQLite read every row of that status through the
// status index instead (every queued event, every sent push) and tested each
// id: a claim took 10 ms at 10,000 pending events and the outcome events of
// each batch of push results grew with the pushes sent
// (docs/benchmark.md#delivery-events). PostgreSQL plans by its statistics.
import type { StoreDatabase } from '../../src/store/database';
import { eventStatements, queuedEventStatement } from '../../src/store/outbox/events';
import { compileOnly } from '../support/compile-only';
import { sqliteVariant, type TestStore } from '../support/stores';

const NOW = '2030-01-01T00:00:00.000Z';

describe('event statements on sqlite', () => {
  let ctx: TestStore;
  const statements = eventStatements(compileOnly<StoreDatabase>('sqlite'), 'sqlite');

  beforeEach(async () => {
    ctx = await sqliteVariant().create();
  });
  afterEach(() => ctx.cleanup());

  const plan = async ({ sql, parameters }: { sql: string; parameters: readonly unknown[] }) =>
    (await ctx.query<{ detail: string }>(`explain query plan ${sql}`, [...parameters])).map((row) => row.detail);

  it('the claim reads the chosen events by primary key', async () => {
    const steps = await plan(
      statements.claim({ ids: JSON.stringify(['msg_a_0', 'msg_b_0']), now: NOW, leaseUntil: NOW, claimToken: 't' }),
    );
    expect(steps[0]).toMatch(/^SEARCH event_outbox USING INDEX sqlite_autoindex_event_outbox_1 \(id=\?\)/);
  });

  it('the outcome events of a batch of results read its pushes by primary key', async () => {
    for (const statement of [statements.outcomeEvents, statements.unregisteredEvents]) {
      const steps = await plan(statement({ ids: JSON.stringify(['a', 'b']), now: NOW }));
      expect(steps[0]).toMatch(/^SEARCH t USING INDEX sqlite_autoindex_push_notifications_1 \(id=\?\)/);
    }
  });

  it('the queued events of a group commit read its pushes by primary key', async () => {
    const queued = queuedEventStatement(compileOnly<StoreDatabase>('sqlite'));
    const steps = await plan(queued({ ids: JSON.stringify(['a', 'b']), now: NOW }));
    expect(steps[0]).toMatch(/^SEARCH t USING INDEX sqlite_autoindex_push_notifications_1 \(id=\?\)/);
  });
});
