// A Kysely that compiles statements for a dialect and never connects: for
// tests that read the SQL (and the plan of it) a store function would run.
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
} from 'kysely';

// `seen`, when given, is told each statement a store function runs on it
// (each reads no rows), for a test that reads what a function ran.
export function compileOnly<DB>(dialect: 'sqlite' | 'postgres', seen?: (query: CompiledQuery) => void): Kysely<DB> {
  const sqlite = dialect === 'sqlite';
  return new Kysely<DB>({
    dialect: {
      createAdapter: () => (sqlite ? new SqliteAdapter() : new PostgresAdapter()),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => (sqlite ? new SqliteIntrospector(db) : new PostgresIntrospector(db)),
      createQueryCompiler: () => (sqlite ? new SqliteQueryCompiler() : new PostgresQueryCompiler()),
    },
    ...(seen === undefined ? {} : { log: (event) => seen(event.query) }),
  });
}
