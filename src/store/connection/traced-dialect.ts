import type { CompiledQuery, Dialect, QueryResult } from 'kysely';
import type { StatementStart, Tracer } from '../../trace';
import { patchedDialect } from './patched-dialect';

/**
 * `dialect` with every statement in a span (docs/operating.md#traces). Every
 * statement of both drivers, the transactions' BEGIN and COMMIT included,
 * goes through a connection's executeQuery, so this is the one place to
 * watch; the span gets the statement's text, whose values are placeholders,
 * and never its parameters. Only used when tracing is on: off, the dialect
 * is the driver's own and a statement costs nothing more.
 */
export function tracedDialect(dialect: Dialect, tracer: Tracer, system: StatementStart['system']): Dialect {
  return patchedDialect(dialect, (connection) => {
    const execute = connection.executeQuery.bind(connection);
    connection.executeQuery = <R>(query: CompiledQuery): Promise<QueryResult<R>> =>
      tracer.statement({ system, text: query.sql }, () => execute<R>(query));
  });
}
