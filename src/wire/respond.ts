import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
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
 *
 * The headers go to writeHead as a flat list, which Node reads in a plain loop
 * where an object costs a `for...in` (and the object). A string body is handed
 * to `end` as it is: Node then writes the head and the body as one string in
 * one write, where a Buffer is a second chunk of a `writev`, and the Buffer is
 * not made at all (docs/benchmark.md#seventh-round-the-node-binary-and-the-js).
 * The bytes on the wire are the same: every header the calls set is ASCII.
 */
export function send(
  res: ServerResponse,
  status: number,
  contentType: string | null,
  body: string | Buffer | readonly Buffer[],
  cacheControl = CACHE_RESULT,
  tap: AnswerTap | null = null,
): void {
  if (typeof body === 'string' && tap === null) {
    res.writeHead(status, headerList(cacheControl, Buffer.byteLength(body, 'utf8'), contentType));
    res.end(body, 'utf8');
    return;
  }
  const chunks = typeof body === 'string' ? [Buffer.from(body, 'utf8')] : Buffer.isBuffer(body) ? [body] : body;
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  res.writeHead(status, headerList(cacheControl, length, contentType));
  for (let i = 0; i < chunks.length - 1; i++) res.write(chunks[i]);
  res.end(chunks[chunks.length - 1]);
  if (tap !== null) tap(res, status, headerObject(cacheControl, length, contentType), chunks);
}

/** The answer's own headers, in the order they are written, as writeHead takes a list: name, value, name, value. */
function headerList(cacheControl: string, length: number, contentType: string | null): (string | number)[] {
  return contentType === null
    ? ['Cache-Control', cacheControl, 'Content-Length', length, 'X-Content-Type-Options', NOSNIFF]
    : [
        'Cache-Control',
        cacheControl,
        'Content-Length',
        length,
        'Content-Type',
        contentType,
        'X-Content-Type-Options',
        NOSNIFF,
      ];
}

/** The same headers as an object, for the answer tap. */
function headerObject(cacheControl: string, length: number, contentType: string | null): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { 'Cache-Control': cacheControl, 'Content-Length': length };
  if (contentType !== null) headers['Content-Type'] = contentType;
  headers['X-Content-Type-Options'] = NOSNIFF;
  return headers;
}

const TEXT_PLAIN = 'text/plain; charset=utf-8';

/** A one-line plain-text answer for requests that are not SOAP or GET/POST calls at all. */
export function sendText(res: ServerResponse, status: number, message: string, cacheControl = CACHE_ERROR): void {
  send(res, status, TEXT_PLAIN, `${message}\r\n`, cacheControl);
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
  // As bytes: the realm is configured text, and a Latin-1 character in it goes out as Node writes a header
  // (one byte), not in a head joined to a string body and written as UTF-8 (send, above).
  send(
    res,
    refusal.kind === 'unauthorized' ? 401 : 403,
    TEXT_PLAIN,
    Buffer.from(`${refusal.message}\r\n`),
    CACHE_ERROR,
  );
}
