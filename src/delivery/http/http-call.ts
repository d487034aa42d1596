// One HTTP request to a provider with a time limit, turning the ways it can
// fail into SendFailure values. Every provider goes through here, so that a
// timeout or a refused connection reads the same whoever we were calling.
import { failure, type SendFailure } from '../provider';
import { parseRetryAfter } from './retry-after';

export interface HttpRequest {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** The whole exchange, body included. */
  readonly timeoutMs: number;
}

export interface HttpAnswer {
  readonly ok: true;
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

// Enough of an error body to say what went wrong, not enough to flood the store.
const DETAIL_LENGTH = 300;

export async function httpCall(request: HttpRequest): Promise<HttpAnswer | SendFailure> {
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    return { ok: true, status: response.status, headers: response.headers, body: await response.text() };
  } catch (error) {
    if (isTimeout(error)) return failure('timeout', `No answer from ${host(request.url)} within ${request.timeoutMs} ms.`, { retryable: true });
    return failure('connection', `Could not reach ${host(request.url)}: ${reason(error)}.`, { retryable: true });
  }
}

/**
 * The usual reading of an HTTP error status: 429 means slow down, 408 and 5xx
 * are worth another try, any other 4xx will fail again the same way.
 */
export function failureFromStatus(answer: HttpAnswer, code = `http_${answer.status}`, detail = answerDetail(answer.body)): SendFailure {
  const message = `HTTP ${answer.status}${detail === '' ? '' : `: ${detail}`}`;
  const retryAfterMs = parseRetryAfter(answer.headers.get('retry-after'));
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

// By name, not instanceof: fetch's DOMException and TypeError may come from
// another realm (Node's internals, a test sandbox) than our Error.
function isTimeout(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'TimeoutError' || name === 'AbortError';
}

// fetch reports every network failure as "fetch failed"; the cause says which.
function reason(error: unknown): string {
  const { message, cause } = (error ?? {}) as { message?: unknown; cause?: { code?: unknown; message?: unknown } };
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return typeof message === 'string' ? message : String(error);
}

function host(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the provider';
  }
}
