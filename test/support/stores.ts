import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import { Client, Pool } from 'pg';
import { migrationsFor } from '../../src/store/migrations';
import {
  openStore,
  type DeliveryCompletion,
  type NewAuthCodeMessage,
  type OpenStoreOptions,
  type OpenedStore,
  type Outbox,
} from '../../src/store';

export type StoreVariantName = 'sqlite' | 'postgres';

/** Every migration of this release, in the order they apply (the same on both dialects). */
export const MIGRATION_NAMES: readonly string[] = Object.keys(migrationsFor('sqlite'));

/** One store location that is isolated from every other test. */
export interface TestStore {
  readonly store: OpenedStore;
  /** The options `store` was opened with; openStore(options) reaches the same data. */
  readonly options: OpenStoreOptions;
  /** Opens another store on the same database; cleanup() closes it. */
  reopen(overrides?: Partial<OpenStoreOptions>): Promise<OpenedStore>;
  /**
   * Raw SQL on the same database, bypassing the store, to check what was
   * persisted; `?` marks parameters. Meant for reads: on SQLite it is a
   * second connection, and a write there would wait synchronously on a
   * transaction the store holds.
   */
  query<Row = Record<string, unknown>>(sql: string, parameters?: readonly unknown[]): Promise<Row[]>;
  /**
   * Runs the down steps of every migration after `name`, as a release that
   * ended there left the schema (close the stores first); the next open
   * migrates up again.
   */
  migrateDownTo(name: string): Promise<void>;
  /** Closes every store opened here and deletes the database. */
  cleanup(): Promise<void>;
}

export interface StoreVariant {
  readonly name: StoreVariantName;
  /** A fresh, migrated, empty store. */
  create(overrides?: Partial<OpenStoreOptions>): Promise<TestStore>;
}

/** The PostgreSQL server the PostgreSQL variants use (TEST_DATABASE_URL), or undefined when it is unset. */
export function testDatabaseUrl(): string | undefined {
  return process.env.TEST_DATABASE_URL?.trim() || undefined;
}

/**
 * Which store kinds run: SQLite always, PostgreSQL when TEST_DATABASE_URL is
 * set. TEST_STORES=postgres leaves SQLite out: .ci/run's second pass runs
 * the PostgreSQL variants alone, after `npm test` has run the SQLite ones
 * (docs/testing.md#postgresql).
 */
export function wantedStores(): StoreVariantName[] {
  const only = process.env.TEST_STORES?.trim();
  const wanted: StoreVariantName[] = only === 'postgres' ? [] : ['sqlite'];
  if (testDatabaseUrl()) wanted.push('postgres');
  return wanted;
}

/**
 * The stores every store test runs against (wantedStores()). Use with
 * `describe.each(storeVariants())`.
 */
export function storeVariants(): StoreVariant[] {
  const databaseUrl = testDatabaseUrl();
  return wantedStores().map((name) =>
    name === 'sqlite' || databaseUrl === undefined
      ? { name: 'sqlite', create: createSqliteStore }
      : { name: 'postgres', create: (overrides) => createPostgresStore(databaseUrl, overrides) },
  );
}

/** SQLite alone, for a test that means the embedded store or needs just one store (it runs wherever the suite does). */
export function sqliteVariant(): StoreVariant {
  return { name: 'sqlite', create: createSqliteStore };
}

/** The PostgreSQL variant alone, for a suite declared with describeWithPostgres. */
export function postgresVariant(databaseUrl: string): StoreVariant {
  return { name: 'postgres', create: (overrides) => createPostgresStore(databaseUrl, overrides) };
}

/**
 * A suite that only means something on PostgreSQL. Its body runs, and is
 * even collected, only when TEST_DATABASE_URL is set: jest executes the body
 * of a skipped describe all the same, so `describe.skip` would still run
 * whatever the body does at load time. Unset, the suite is one skipped test
 * that says why.
 */
export function describeWithPostgres(title: string, body: (databaseUrl: string) => void): void {
  const databaseUrl = testDatabaseUrl();
  if (databaseUrl !== undefined) {
    describe(title, () => body(databaseUrl));
    return;
  }
  describe(title, () => {
    it.skip('needs PostgreSQL: TEST_DATABASE_URL is unset (.ci/run sets it)', () => undefined);
  });
}

async function createSqliteStore(overrides: Partial<OpenStoreOptions> = {}): Promise<TestStore> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-store-'));
  let raw: Database.Database | null = null;
  return track(
    { dataDir, ...overrides },
    {
      query: (sql, parameters = []) => {
        raw ??= new Database(path.join(dataDir, 'service.sqlite'));
        const statement = raw.prepare(sql);
        if (statement.reader) return Promise.resolve(statement.all(...parameters) as never[]);
        statement.run(...parameters);
        return Promise.resolve([]);
      },
      kysely: () =>
        new Kysely({ dialect: new SqliteDialect({ database: new Database(path.join(dataDir, 'service.sqlite')) }) }),
      remove: () => {
        raw?.close();
        rmSync(dataDir, { recursive: true, force: true });
        return Promise.resolve();
      },
    },
  );
}

async function createPostgresStore(databaseUrl: string, overrides: Partial<OpenStoreOptions> = {}): Promise<TestStore> {
  const schema = `store_test_${randomBytes(6).toString('hex')}`;
  let client: Client | null = null;
  const connect = async (): Promise<Client> => {
    if (client === null) {
      client = new Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
      await client.connect();
    }
    return client;
  };
  return track(
    { databaseUrl, schema, dataDir: os.tmpdir(), ...overrides },
    {
      query: async (sql, parameters = []) => {
        let index = 0;
        const numbered = sql.replace(/\?/g, () => `$${++index}`);
        return (await (await connect()).query(numbered, [...parameters])).rows as never[];
      },
      kysely: () =>
        new Kysely({
          dialect: new PostgresDialect({
            pool: new Pool({ connectionString: databaseUrl, options: `-c search_path=${schema}`, max: 1 }),
          }),
        }),
      remove: async () => {
        const admin = await connect();
        try {
          await admin.query(`drop schema if exists ${schema} cascade`);
        } finally {
          // A second cleanup (after a failed open, say) connects afresh.
          client = null;
          await admin.end();
        }
      },
    },
  );
}

interface Location {
  query(sql: string, parameters?: readonly unknown[]): Promise<never[]>;
  /** A Kysely of its own on the same database, for the migrator. */
  kysely(): Kysely<unknown>;
  remove(): Promise<void>;
}

async function track(options: OpenStoreOptions, location: Location): Promise<TestStore> {
  const opened: OpenedStore[] = [];
  const open = async (overrides: Partial<OpenStoreOptions> = {}): Promise<OpenedStore> => {
    const store = await openStore({ ...options, ...overrides });
    opened.push(store);
    return store;
  };
  let store: OpenedStore;
  try {
    store = await open();
  } catch (error) {
    await location.remove();
    throw error;
  }
  return {
    store,
    options,
    reopen: open,
    query: (sql, parameters) => location.query(sql, parameters),
    async migrateDownTo(name) {
      const db = location.kysely();
      const dialect = options.databaseUrl === undefined ? 'sqlite' : 'postgres';
      try {
        const migrator = new Migrator({
          db,
          provider: { getMigrations: () => Promise.resolve(migrationsFor(dialect)) },
          migrationTableSchema: options.schema,
        });
        const { error } = await migrator.migrateTo(name);
        if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
      } finally {
        await db.destroy();
      }
    },
    async cleanup() {
      await Promise.all(opened.map((each) => each.lifecycle.close()));
      await location.remove();
    },
  };
}

export interface TestClock {
  now(): Date;
  set(iso: string): void;
}

/** A clock that stands still until a test moves it. */
export function testClock(start = '2030-01-01T00:00:00.000Z'): TestClock {
  let current = new Date(start);
  return {
    now: () => new Date(current),
    set(iso) {
      current = new Date(iso);
    },
  };
}

export interface FreshStore {
  readonly clock: TestClock;
  /** The store of the test that is running. */
  readonly ctx: TestStore;
}

/**
 * A fresh store of the variant for every test, on a clock set back to
 * `start` before each, seeded by `seed` when given, cleaned up after each.
 * Call inside a describe.
 */
export function freshStorePerTest(
  variant: StoreVariant,
  options: { start?: string; seed?: (ctx: TestStore, clock: TestClock) => Promise<unknown> } = {},
): FreshStore {
  const start = options.start ?? '2030-01-01T00:00:00.000Z';
  const clock = testClock(start);
  let ctx: TestStore | null = null;
  beforeEach(async () => {
    clock.set(start);
    ctx = await variant.create({ now: clock.now });
    await options.seed?.(ctx, clock);
  });
  afterEach(() => ctx?.cleanup());
  return {
    clock,
    get ctx(): TestStore {
      if (ctx === null) throw new Error('the store exists only while a test runs');
      return ctx;
    },
  };
}

/** Queues a login-code SMS the one way the store offers (an admission, here with no limits) and returns its id. */
export async function queueAuthCode(
  store: { readonly outbox: Pick<Outbox, 'admitAuthCode'> },
  message: NewAuthCodeMessage,
): Promise<string> {
  const admission = await store.outbox.admitAuthCode(message, []);
  if (!admission.admitted) throw new Error('A login code was refused with no limits set.');
  return admission.id;
}

/** Records how one attempt ended, the way the worker does (a batch of one); false when the claim was no longer current. */
export async function completeOne(
  store: { readonly outbox: Pick<Outbox, 'completeDeliveries'> },
  channel: 'push' | 'sms',
  id: string,
  claimToken: string,
  completion: DeliveryCompletion,
): Promise<boolean> {
  const [current] = await store.outbox.completeDeliveries([{ channel, id, claimToken, completion }]);
  return current;
}
