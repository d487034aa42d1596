import type { ServerResponse } from 'node:http';
import type { AnswerTap } from './call-record';

/** ASMX's cache policy: results carry `private, max-age=0`; errors raised before an operation ran only `private`. */
export const CACHE_RESULT = 'private, max-age=0';
export const CACHE_ERROR = 'private';

/**
 * `X-Content-Type-Options: nosniff` on every answer: a browser must not read
 * a WSDL, an error text or the metrics as HTML. Written as one more entry of
 * the headers object given to writeHead, which costs next to nothing; set
 * with setHeader before writeHead it would send every other header through
 * Node's slower path (docs/benchmark.md).
 */
export const NOSNIFF = 'nosniff';

/**
 * Writes a whole answer with exact headers: a length, never chunked, nothing
 * added by a framework. `tap`, when given, is handed the status, headers and
 * bytes as written (the call's AnswerTap, call-record.ts).
 */
export function send(
  res: ServerResponse,
  status: number,
  contentType: string | null,
  body: string | Buffer | readonly Buffer[],
  cacheControl = CACHE_RESULT,
  tap: AnswerTap | null = null,
): void {
  const chunks = typeof body === 'string' ? [Buffer.from(body, 'utf8')] : Buffer.isBuffer(body) ? [body] : body;
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  const headers: Record<string, string | number> = { 'Cache-Control': cacheControl, 'Content-Length': length };
  if (contentType !== null) headers['Content-Type'] = contentType;
  headers['X-Content-Type-Options'] = NOSNIFF;
  res.writeHead(status, headers);
  for (let i = 0; i < chunks.length - 1; i++) res.write(chunks[i]);
  res.end(chunks[chunks.length - 1]);
  if (tap !== null) tap(res, status, headers, chunks);
}

/** A one-line plain-text answer for requests that are not SOAP or GET/POST calls at all. */
export function sendText(res: ServerResponse, status: number, message: string, cacheControl = CACHE_ERROR): void {
  send(res, status, 'text/plain; charset=utf-8', `${message}\r\n`, cacheControl);
}

/**
 * An access refusal that is an HTTP answer rather than an ASMX fault: 401
 * with the Basic challenge every client stack answers (RFC 7617, charset
 * UTF-8), or 403; both a one-line plain-text reason (docs/security.md).
 */
export function sendAccessRefusal(
  res: ServerResponse,
  refusal: {
    readonly kind: 'forbidden' | 'unauthorized';
    readonly message: string;
    readonly realm?: string;
    readonly retryAfterSeconds?: number;
  },
): void {
  if (refusal.kind === 'unauthorized')
    res.setHeader('WWW-Authenticate', `Basic realm="${refusal.realm ?? ''}", charset="UTF-8"`);
  if (refusal.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(refusal.retryAfterSeconds));
  sendText(res, refusal.kind === 'unauthorized' ? 401 : 403, refusal.message);
}
