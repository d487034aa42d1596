// A query string longer than MAX_QUERY_STRING_LENGTH is refused before any
// handler reads it, as ASP.NET refuses one past httpRuntime's
// maxQueryStringLength (2,048 characters by default) with 400 Bad Request
// (docs/design.md#query-string-length, test/wire/query-length.test.ts).
import type { IncomingMessage } from 'node:http';

/** ASP.NET's message for it, as one line of plain text rather than its HTML error page. */
export const QUERY_STRING_TOO_LONG =
  'The length of the query string for this request exceeds the configured maxQueryStringLength value.';

/** The length of `url`'s query string (after the `?`), as the request line carries it. */
export function queryStringLength(url: string | undefined): number {
  if (url === undefined) return 0;
  const at = url.indexOf('?');
  return at < 0 ? 0 : url.length - at - 1;
}

/** Whether `req`'s query string is longer than `max` characters; a `max` of 0 admits every length. */
export function queryStringTooLong(req: IncomingMessage, max: number): boolean {
  return max > 0 && queryStringLength(req.url) > max;
}
