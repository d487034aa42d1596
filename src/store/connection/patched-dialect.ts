import type { DatabaseConnection, Dialect, Driver } from 'kysely';

/** The driver's own ways to take and give back a connection, for a patch that must let go of one meanwhile. */
export interface ConnectionHandles {
  readonly acquire: () => Promise<DatabaseConnection>;
  readonly release: (connection: DatabaseConnection) => Promise<void>;
}

/**
 * `dialect` with `patch` applied once to each connection its driver hands
 * out (tracing each statement, waiting for an outside lock). Patched in place
 * rather than wrapped: each driver takes its own connection class back on
 * release (pg's calls a private method of it).
 */
export function patchedDialect(
  dialect: Dialect,
  patch: (connection: DatabaseConnection, handles: ConnectionHandles) => void,
): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: (): Driver => {
      const driver = dialect.createDriver();
      const handles: ConnectionHandles = {
        acquire: driver.acquireConnection.bind(driver),
        release: driver.releaseConnection.bind(driver),
      };
      const patched = new WeakSet<DatabaseConnection>();
      driver.acquireConnection = async () => {
        const connection = await handles.acquire();
        if (!patched.has(connection)) {
          patched.add(connection);
          patch(connection, handles);
        }
        return connection;
      };
      return driver;
    },
  };
}
