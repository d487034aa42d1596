// A PostgreSQL connection that dies while a request holds it (the server
// stopped or restarted mid-transaction) must fail that request, not the
// process: pg reports the loss as an 'error' event on the client, which
// without a listener Node treats as uncaught. docs/chaos.md, the outage suite.
import { Kysely, sql } from 'kysely';
import { Client } from 'pg';
import { createPostgresDialect } from '../../src/store/connection/postgres';
import { describeWithPostgres } from '../support/stores';

describeWithPostgres('a PostgreSQL connection lost while checked out', (databaseUrl) => {
  it('fails the holder, reports the error, and the pool serves the next query', async () => {
    const reported: Error[] = [];
    const db = new Kysely<Record<string, never>>({
      dialect: createPostgresDialect({
        databaseUrl,
        onBackgroundError: (e) => reported.push(e),
      }),
    });
    const admin = new Client({ connectionString: databaseUrl });
    await admin.connect();
    try {
      const failure = await db
        .transaction()
        .execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          // Between two statements the client is idle but checked out: the server ends the session now.
          await admin.query('select pg_terminate_backend($1)', [rows[0].pid]);
          const deadline = Date.now() + 5000;
          while (reported.length === 0 && Date.now() < deadline)
            await new Promise((resolve) => setTimeout(resolve, 20));
          await sql`select 1`.execute(trx);
        })
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(failure).toBeInstanceOf(Error);
      expect(reported.length).toBeGreaterThan(0);
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(db);
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await admin.end();
      await db.destroy();
    }
  });
});
