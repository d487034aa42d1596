// Sends one recorded request to a server and reads its answer, bounded: a
// timeout for the whole exchange and a cap on the answer's size. Node's own
// http client, so that the request goes out as recorded (a malformed
// envelope, an empty SOAPAction) and nothing is added but Host and the length.
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

/** The answer of `base` (`http://host:port`, a path prefix allowed) to `request`; rejects with SendError. */
export function sendRequest(base: string, request: RecordedRequest, options: SendOptions): Promise<Answer> {
  const url = new URL(base.replace(/\/+$/, '') + request.path);
  const body = bodyBytes(request);
  const headers: Record<string, string | number> = { ...request.headers };
  if (body.length > 0 || request.method === 'POST') headers['content-length'] = body.length;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const fail = (message: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new SendError(message));
    };
    const req = client.request(
      url,
      { method: request.method, headers, agent: options.agent, timeout: options.timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxAnswerBytes) {
            req.destroy();
            fail(`answer longer than ${options.maxAnswerBytes} bytes`);
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          const answerHeaders: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) answerHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
          }
          resolve({ status: res.statusCode ?? 0, headers: answerHeaders, body: Buffer.concat(chunks) });
        });
        res.on('error', (err) => fail(err.message));
      },
    );
    // The whole exchange, not only idle time: a server trickling bytes is cut off too.
    timer = setTimeout(() => {
      req.destroy();
      fail(`no answer within ${options.timeoutMs} ms`);
    }, options.timeoutMs);
    req.on('timeout', () => {
      req.destroy();
      fail(`no answer within ${options.timeoutMs} ms`);
    });
    req.on('error', (err: NodeJS.ErrnoException) => fail(err.code ?? err.message));
    req.end(body);
  });
}
