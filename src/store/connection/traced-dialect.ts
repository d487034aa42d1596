import type { CompiledQuery, DatabaseConnection, Dialect, QueryResult } from 'kysely';
import type { StatementStart, Tracer } from '../../trace';

/**
 * `dialect` with every statement in a span (docs/operating.md#traces). Every
 * statement of both drivers, the transactions' BEGIN and COMMIT included,
 * goes through a connection's executeQuery, so this is the one place to
 * watch; the span gets the statement's text, whose values are placeholders,
 * and never its parameters. Only used when tracing is on: off, the dialect
 * is the driver's own and a statement costs nothing more.
 */
export function tracedDialect(dialect: Dialect, tracer: Tracer, system: StatementStart['system']): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => {
      const driver = dialect.createDriver();
      const acquire = driver.acquireConnection.bind(driver);
      const traced = new WeakSet<DatabaseConnection>();
      // Patched in place rather than wrapped: each driver hands its own
      // connection class back to itself on release (pg's calls a private method of it).
      driver.acquireConnection = async () => {
        const connection = await acquire();
        if (!traced.has(connection)) {
          traced.add(connection);
          const execute = connection.executeQuery.bind(connection);
          connection.executeQuery = <R>(query: CompiledQuery): Promise<QueryResult<R>> =>
            tracer.statement({ system, text: query.sql }, () => execute<R>(query));
        }
        return connection;
      };
      return driver;
    },
  };
}
