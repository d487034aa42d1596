// One HTTP request to a provider with a time limit, turning the ways it can
// fail into SendFailure values. Every provider goes through here, so that a
// timeout or a refused connection reads the same whoever we were calling.
import http from 'node:http';
import https from 'node:https';
import { failure, type SendFailure } from '../provider';
import { parseRetryAfter } from './retry-after';

export interface HttpRequest {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** The whole exchange, body included. */
  readonly timeoutMs: number;
  /** Connection pools of the caller's own (the event worker's only connect to public addresses); the shared ones unless set. */
  readonly agents?: HttpAgents;
}

export interface HttpAgents {
  readonly 'http:': http.Agent;
  readonly 'https:': https.Agent;
}

export interface HttpAnswer {
  readonly ok: true;
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

// Enough of an error body to say what went wrong, not enough to flood the store.
const DETAIL_LENGTH = 300;
// Longest answer body kept; providers answer a few hundred bytes.
const MAX_BODY_BYTES = 64 * 1024;

// node:http with keep-alive rather than fetch: on this path (many small
// requests to one host) it costs a quarter of the CPU per request, measured.
const AGENTS: HttpAgents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

export function httpCall(request: HttpRequest): Promise<HttpAnswer | SendFailure> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return Promise.resolve(failure('bad_url', `${request.url} is not a URL.`));
  }
  const secure = url.protocol === 'https:';
  const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8');
  return new Promise((resolve) => {
    let timedOut = false;
    // The whole request was handed to the connection: from then on the provider may have it.
    let requestSent = false;
    const outgoing = (secure ? https : http).request(
      url,
      {
        method: request.method,
        agent: (request.agents ?? AGENTS)[secure ? 'https:' : 'http:'],
        headers: body === undefined ? request.headers : { ...request.headers, 'content-length': String(body.length) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_BODY_BYTES) chunks.push(chunk);
        });
        response.on('end', () => {
          clearTimeout(timer);
          resolve({
            ok: true,
            status: response.statusCode ?? 0,
            headers: flatten(response.headers),
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
        response.on('error', (error) => settleFailure(error));
      },
    );
    const timer = setTimeout(() => {
      timedOut = true;
      outgoing.destroy();
    }, request.timeoutMs);
    const settleFailure = (error: unknown) => {
      clearTimeout(timer);
      // A kept-alive connection the server had just closed resets our request
      // before it was read: sending it again is safe (Node's documented case).
      const staleConnection =
        outgoing.reusedSocket && (error as { code?: unknown } | null)?.code === 'ECONNRESET' && !timedOut;
      const uncertain = requestSent && !staleConnection;
      if (timedOut)
        resolve(
          failure('timeout', `No answer from ${url.host} within ${request.timeoutMs} ms.`, {
            retryable: true,
            uncertain,
          }),
        );
      else
        resolve(
          failure('connection', `Could not reach ${url.host}: ${reason(error)}.`, { retryable: true, uncertain }),
        );
    };
    outgoing.on('finish', () => {
      requestSent = true;
    });
    outgoing.on('error', settleFailure);
    outgoing.end(body);
  });
}

function flatten(headers: http.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}

/**
 * The usual reading of an HTTP error status: 429 means slow down, 408 and 5xx
 * are worth another try, any other 4xx will fail again the same way.
 */
export function failureFromStatus(
  answer: HttpAnswer,
  code = `http_${answer.status}`,
  detail = answerDetail(answer.body),
): SendFailure {
  const message = `HTTP ${answer.status}${detail === '' ? '' : `: ${detail}`}`;
  const retryAfterMs = parseRetryAfter(answer.headers['retry-after'] ?? null);
  if (answer.status === 429) return failure(code, message, { retryable: true, rateLimited: true, retryAfterMs });
  if (answer.status === 408 || answer.status >= 500) return failure(code, message, { retryable: true, retryAfterMs });
  return failure(code, message);
}

/** The start of a body on one line. */
export function answerDetail(body: string): string {
  const line = body.replace(/\s+/g, ' ').trim();
  return line.length > DETAIL_LENGTH ? `${line.slice(0, DETAIL_LENGTH)}…` : line;
}

export function isSuccess(answer: HttpAnswer): boolean {
  return answer.status >= 200 && answer.status < 300;
}

/** Parsed JSON, or undefined when the body is not JSON. */
export function jsonBody(answer: HttpAnswer): unknown {
  try {
    return JSON.parse(answer.body) as unknown;
  } catch {
    return undefined;
  }
}

function reason(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string') return code;
  return typeof message === 'string' && message !== '' ? message : 'connection failed';
}
