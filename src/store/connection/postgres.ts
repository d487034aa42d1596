import { PostgresDialect, sql, type Kysely } from 'kysely';
import { Pool } from 'pg';

const POOL_SIZE = 10;
// Without a bound, a request waits as long as the OS takes to give up on an
// unreachable server; five seconds turns that into a prompt "unavailable".
export const CONNECT_TIMEOUT_MS = 5_000;

// Lower case only: PostgreSQL folds unquoted names in search_path, and the
// name travels unquoted in the connection's startup options.
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export interface PostgresDialectOptions {
  databaseUrl: string;
  /** Schema for every table; created by the caller, set as search_path here. */
  schema?: string;
  /** Errors of idle connections, which no request would otherwise see. */
  onBackgroundError?: (error: Error) => void;
}

export function assertSchemaName(schema: string): void {
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(`Invalid PostgreSQL schema name "${schema}": use lower-case letters, digits and _.`);
  }
}

export function createPostgresDialect(options: PostgresDialectOptions): PostgresDialect {
  if (options.schema !== undefined) assertSchemaName(options.schema);
  const pool = new Pool({
    connectionString: options.databaseUrl,
    max: POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // A startup parameter applies before any query, on every connection.
    ...(options.schema !== undefined ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // pg emits 'error' for idle clients whose server went away; without a
  // listener Node would treat it as uncaught and exit.
  pool.on('error', (error) => options.onBackgroundError?.(error));
  // So does a client that is checked out but between statements (inside a
  // transaction) when the server ends its session: PostgreSQL stopped or
  // restarted under load killed the process (test/store/postgres-connection-loss.test.ts).
  // The holder's next statement fails instead, and the pool drops the client.
  pool.on('connect', (client) => client.on('error', (error) => options.onBackgroundError?.(error)));
  return new PostgresDialect({ pool });
}

/**
 * Creates `schema` when given, and names the schema the migration table
 * lives in: Kysely would otherwise take any schema's migration table (a test
 * schema, say) for ours.
 */
export async function preparePostgresSchema<DB>(
  db: Kysely<DB>,
  schema: string | undefined,
): Promise<string | undefined> {
  if (schema === undefined) {
    const { rows } = await sql<{ name: string | null }>`select current_schema() as name`.execute(db);
    return rows[0]?.name ?? undefined;
  }
  try {
    await db.schema.createSchema(schema).ifNotExists().execute();
  } catch (error) {
    // Two processes creating it at once: the loser sees a duplicate, which is fine.
    const code = (error as { code?: unknown }).code;
    if (code !== '23505' && code !== '42P06') throw error;
  }
  return schema;
}
