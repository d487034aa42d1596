import type { ServerResponse } from 'node:http';

/** ASMX's cache policy: results carry `private, max-age=0`; errors raised before an operation ran only `private`. */
export const CACHE_RESULT = 'private, max-age=0';
export const CACHE_ERROR = 'private';

/** Writes a whole answer with exact headers: a length, never chunked, nothing added by a framework. */
export function send(res: ServerResponse, status: number, contentType: string | null, body: string | Buffer, cacheControl = CACHE_RESULT): void {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const headers: Record<string, string | number> = { 'Cache-Control': cacheControl, 'Content-Length': bytes.length };
  if (contentType !== null) headers['Content-Type'] = contentType;
  res.writeHead(status, headers);
  res.end(bytes);
}

/** A one-line plain-text answer for requests that are not SOAP or GET/POST calls at all. */
export function sendText(res: ServerResponse, status: number, message: string): void {
  send(res, status, 'text/plain; charset=utf-8', `${message}\r\n`, CACHE_ERROR);
}
