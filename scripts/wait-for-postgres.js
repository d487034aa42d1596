// Checks that the PostgreSQL server named by TEST_DATABASE_URL answers,
// retrying for a while; exits non-zero with a clear message if it does not.
const { Client } = require('pg');

const url = process.env.TEST_DATABASE_URL;
if (!url) {
  console.error('TEST_DATABASE_URL is not set');
  process.exit(2);
}
const deadline = Date.now() + Number(process.env.WAIT_SECONDS || 30) * 1000;

async function tryOnce() {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    const { rows } = await client.query('select version() as v');
    return rows[0].v;
  } finally {
    await client.end().catch(() => {});
  }
}

const shown = url.replace(/\/\/[^@]*@/, '//***@');
const started = Date.now();

(async () => {
  let last;
  let said = started;
  while (Date.now() < deadline) {
    try {
      console.log(`PostgreSQL reachable: ${await tryOnce()}`);
      return;
    } catch (err) {
      last = err;
      // Never silent for long: a line every 5 s while it waits.
      if (Date.now() - said >= 5000) {
        said = Date.now();
        console.error(`waiting for PostgreSQL at ${shown} (${Math.round((said - started) / 1000)} s): ${err.message}`);
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  console.error(`PostgreSQL at ${shown} is NOT reachable: ${last && last.message}`);
  process.exit(1);
})();
