// `npm run test:postgres` (.ci/run's second part): the suites that run on
// PostgreSQL, with TEST_STORES=postgres so that their SQLite variants, which
// `npm test` has just run, are left out (docs/testing.md#postgresql). A suite
// counts when it reads the store variants or the PostgreSQL server through
// test/support/stores.ts.
const { readdirSync, readFileSync } = require('node:fs');
const path = require('node:path');
const base = require('../../jest.config.js');

if (!process.env.TEST_DATABASE_URL?.trim())
  throw new Error('npm run test:postgres needs TEST_DATABASE_URL (postgres://user@host:port/database)');

const root = path.resolve(__dirname, '../..');
const USES_POSTGRES = /\b(storeVariants|describeWithPostgres|wantedStores|testDatabaseUrl)\(/;

const suites = readdirSync(path.join(root, 'test'), { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
  .map((entry) => path.join(entry.parentPath, entry.name))
  .filter((file) => USES_POSTGRES.test(readFileSync(file, 'utf8')));

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  rootDir: root,
  roots: ['<rootDir>/test'],
  testMatch: suites,
};
