// Sends one recorded request to a server and reads its answer, bounded: a
// timeout for the whole exchange and a cap on the answer's size. Node's own
// http client, so that the request goes out as recorded (a malformed
// envelope, an empty SOAPAction) and nothing is added but Host and the length.
//
// The shadow calls send one request after another to the same server, so the
// server's address is read once (`createSender`) and each request is given as
// bytes: no URL parsed, no body decoded and encoded again, one timer per
// exchange (docs/design.md#the-shadows-cost).
import http from 'node:http';
import https from 'node:https';
import { bodyBytes, type Answer, type RecordedRequest } from './exchange';

export interface SendOptions {
  readonly timeoutMs: number;
  /** Longest answer read; a longer one fails the exchange. */
  readonly maxAnswerBytes: number;
  /** Connections to reuse (the shadow keeps one agent); left out, Node's default agent. */
  readonly agent?: http.Agent;
}

export class SendError extends Error {
  override readonly name = 'SendError';
}

/** One request as it goes out: the path and query are put after the server's own path prefix. */
export interface OutgoingRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** Sends requests to one server; rejects with SendError. */
export type Sender = (request: OutgoingRequest) => Promise<Answer>;

/** The answer of `base` (`http://host:port`, a path prefix allowed) to `request`; rejects with SendError. */
export function sendRequest(base: string, request: RecordedRequest, options: SendOptions): Promise<Answer> {
  return createSender(
    base,
    options,
  )({
    method: request.method,
    path: request.path,
    headers: request.headers,
    body: bodyBytes(request),
  });
}

/**
 * Paths that `new URL` would give back unchanged: nothing to percent-encode
 * (a space, quotes, `<>{}`, a backquote), no backslash, no `#`, no dot segment.
 */
const PLAIN_PATH = /^\/[A-Za-z0-9\-_~!$&()*+,;=:@%/?.]*$/;
const DOT_SEGMENT = /\/(?:\.|%2e)/i;

/** The request's path after `prefix`, as `new URL(base + path)` gives it (encoded, dot segments resolved). */
function pathOf(base: string, prefix: string, path: string): string {
  if (PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path)) return prefix + path;
  const url = new URL(base.replace(/\/+$/, '') + path);
  return url.pathname + url.search;
}

/** A sender to `base` (`http://host:port`, a path prefix allowed), its address read once. */
export function createSender(base: string, options: SendOptions): Sender {
  const url = new URL(base.replace(/\/+$/, ''));
  const client = url.protocol === 'https:' ? https : http;
  // IPv6 literals are given to the client without their brackets.
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port === '' ? undefined : Number(url.port);
  const prefix = url.pathname === '/' ? '' : url.pathname;
  const { timeoutMs, maxAnswerBytes, agent } = options;
  return (request) => {
    const headers: Record<string, string | number> = { ...request.headers };
    const body = request.body;
    if (body.length > 0 || request.method === 'POST') headers['content-length'] = body.length;
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      // The first of the answer, a failure's message, or the timer ends the exchange.
      const settle = (outcome: Answer | string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (typeof outcome === 'string') reject(new SendError(outcome));
        else resolve(outcome);
      };
      const fail = (message: string) => settle(message);
      const req = client.request(
        {
          protocol: url.protocol,
          hostname,
          port,
          method: request.method,
          path: pathOf(base, prefix, request.path),
          headers,
          agent,
          // The URL's own credentials, as `new URL` would have given them to the client.
          auth:
            url.username === '' ? undefined : `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxAnswerBytes) {
              req.destroy();
              fail(`answer longer than ${maxAnswerBytes} bytes`);
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => {
            if (settled) return;
            const answerHeaders: Record<string, string> = {};
            for (const [name, value] of Object.entries(res.headers)) {
              if (value !== undefined) answerHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
            }
            settle({
              status: res.statusCode ?? 0,
              headers: answerHeaders,
              body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size),
            });
          });
          res.on('error', (err) => fail(err.message));
        },
      );
      // The whole exchange, not only idle time: a server trickling bytes is cut off too.
      timer = setTimeout(() => {
        req.destroy();
        fail(`no answer within ${timeoutMs} ms`);
      }, timeoutMs);
      req.on('error', (err: NodeJS.ErrnoException) => fail(err.code ?? err.message));
      req.end(body);
    });
  };
}
