// Requests to one HTTPS origin over a few HTTP/2 sessions, many streams each
// (FCM: docs/delivery.md#fcm-over-http2). A stream starts only where the
// server's SETTINGS_MAX_CONCURRENT_STREAMS leaves room; when every session is
// full, a new one opens (up to `maxSessions`), else the request waits its turn.
// A session that gets GOAWAY takes no new stream and closes once its streams
// end; one that fails is dropped. A request that failed with its session
// (refused, GOAWAY, reset, connection lost) before an answer came is sent
// again on another session, up to `sessionRetries` times, and only then
// reported as a retryable `connection` failure: never a reason to give a
// message up.
import http2 from 'node:http2';
import { failure, type SendFailure } from '../provider';
import type { HttpAnswer } from './http-call';

export interface H2PoolOptions {
  /** `https://host[:port]`. */
  readonly origin: string;
  /** Sessions open at most; 4 when unset. */
  readonly maxSessions?: number;
  /** Extra certificate authorities (PEM) trusted on top of the system's; NODE_EXTRA_CA_CERTS does the same for the whole process. */
  readonly ca?: string;
  /** Times a request that failed with its session is sent again on another; 2 when unset. */
  readonly sessionRetries?: number;
  /** A session with no stream for this long is closed; 60 s when unset. */
  readonly idleMs?: number;
}

export interface H2Request {
  /** Path and query. */
  readonly path: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** The whole exchange, waiting for a stream and the answer's body included. */
  readonly timeoutMs: number;
}

// When the server's SETTINGS name no limit, keep to what most servers (Google's among them) announce.
const ASSUMED_STREAM_LIMIT = 100;
// A server that announces no limit (2^32-1) still gets its streams spread over sessions.
const MAX_STREAMS_PER_SESSION = 1000;
const MAX_BODY_BYTES = 64 * 1024;
const { NGHTTP2_REFUSED_STREAM, HTTP2_HEADER_STATUS } = http2.constants;

interface Session {
  readonly http2: http2.ClientHttp2Session;
  active: number;
  /** No new stream: GOAWAY received, an error, or closing. */
  closing: boolean;
  /** The server's SETTINGS arrived: the session takes streams. */
  settled: boolean;
  /** Why it closed, when it did so before settling (refused, TLS, …). */
  error: unknown;
}

/** Why a stream failed, so that the caller knows whether to try another session. */
type StreamOutcome =
  HttpAnswer | { readonly ok: false; readonly sessionFailure: boolean; readonly failure: SendFailure };

export class H2Pool {
  readonly #origin: string;
  readonly #host: string;
  readonly #maxSessions: number;
  readonly #ca: string | undefined;
  readonly #retries: number;
  readonly #idleMs: number;
  readonly #sessions = new Set<Session>();
  readonly #waiting: Array<() => void> = [];
  #closed = false;

  constructor(options: H2PoolOptions) {
    const url = new URL(options.origin);
    if (url.protocol !== 'https:') throw new RangeError('H2Pool needs an https:// origin');
    this.#origin = url.origin;
    this.#host = url.host;
    this.#maxSessions = options.maxSessions ?? 4;
    this.#ca = options.ca;
    this.#retries = options.sessionRetries ?? 2;
    this.#idleMs = options.idleMs ?? 60_000;
  }

  /** Sessions open now (tests, metrics). */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  async request(request: H2Request): Promise<HttpAnswer | SendFailure> {
    const deadline = Date.now() + request.timeoutMs;
    let last: SendFailure | null = null;
    for (let attempt = 0; attempt <= this.#retries; attempt++) {
      const session = await this.#acquire(deadline);
      if (session === null) return last ?? this.#timeout(request);
      if ('failure' in session) {
        last = session.failure;
        continue;
      }
      const outcome = await this.#stream(session, request, deadline);
      if (outcome.ok) return outcome;
      if (!outcome.sessionFailure) return outcome.failure;
      last = outcome.failure;
    }
    return last as SendFailure;
  }

  /** Closes every session; requests under way fail. */
  close(): void {
    this.#closed = true;
    for (const session of this.#sessions) session.http2.destroy();
    this.#sessions.clear();
    for (const wake of this.#waiting.splice(0)) wake();
  }

  // A session with a free stream, opening one if all are full and there is
  // room for another; null when the deadline passes first, a failure when the
  // session waited for could not be opened.
  async #acquire(deadline: number): Promise<Session | { failure: SendFailure } | null> {
    let awaited: Session | null = null;
    for (;;) {
      if (this.#closed) return null;
      if (awaited !== null && awaited.closing && !awaited.settled) {
        return {
          failure: failure('connection', `Could not reach ${this.#host}: ${reason(awaited.error)}.`, {
            retryable: true,
          }),
        };
      }
      let best: Session | null = null;
      let opening: Session | null = null;
      for (const session of this.#sessions) {
        if (session.closing) continue;
        // A session is used once the server's SETTINGS say how many streams it takes.
        if (!session.settled) opening = session;
        else if (session.active >= this.#limitOf(session)) continue;
        // Fill the busiest session that has room: idle sessions time out and close.
        else if (best === null || session.active > best.active) best = session;
      }
      if (best === null && opening === null && this.#openCount() < this.#maxSessions) opening = this.#open();
      awaited = opening;
      if (best !== null) {
        best.active++;
        return best;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          const index = this.#waiting.indexOf(wake);
          if (index >= 0) this.#waiting.splice(index, 1);
          resolve();
        }, remaining);
        const wake = () => {
          clearTimeout(timer);
          resolve();
        };
        this.#waiting.push(wake);
      });
    }
  }

  #openCount(): number {
    let open = 0;
    for (const session of this.#sessions) if (!session.closing) open++;
    return open;
  }

  #limitOf(session: Session): number {
    return Math.min(session.http2.remoteSettings.maxConcurrentStreams ?? ASSUMED_STREAM_LIMIT, MAX_STREAMS_PER_SESSION);
  }

  #open(): Session {
    const client = http2.connect(this.#origin, this.#ca === undefined ? {} : { ca: this.#ca });
    const session: Session = { http2: client, active: 0, closing: false, settled: false, error: null };
    this.#sessions.add(session);
    // The session must not keep the process alive: a request under way holds its own timer.
    client.unref();
    client.setTimeout(this.#idleMs, () => {
      if (session.active === 0) this.#retire(session, true);
    });
    client.on('remoteSettings', () => {
      session.settled = true;
      this.#wakeWaiting();
    });
    client.on('goaway', () => this.#retire(session, false));
    client.on('error', (error) => {
      session.error ??= error;
      this.#retire(session, true);
    });
    client.on('close', () => this.#retire(session, true));
    return session;
  }

  // No new stream on this session; with `now`, or once its streams end, it goes.
  #retire(session: Session, now: boolean): void {
    session.closing = true;
    if (now || session.active === 0) {
      this.#sessions.delete(session);
      if (!session.http2.destroyed) session.http2.close();
    }
    this.#wakeWaiting();
  }

  #release(session: Session): void {
    session.active--;
    if (session.closing && session.active === 0) this.#retire(session, true);
    // One stream came free: one waiter may take it (a retired session wakes them all).
    else this.#waiting.shift()?.();
  }

  #wakeWaiting(): void {
    for (const wake of this.#waiting.splice(0)) wake();
  }

  #stream(session: Session, request: H2Request, deadline: number): Promise<StreamOutcome> {
    const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8');
    return new Promise<StreamOutcome>((resolve) => {
      let settled = false;
      let answered = false;
      // Set once the stream exists; a stream that could not start settles before it.
      let timer: NodeJS.Timeout | undefined;
      const settle = (outcome: StreamOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.#release(session);
        resolve(outcome);
      };
      const lost = (error: unknown) =>
        settle({
          ok: false,
          sessionFailure: true,
          failure: failure('connection', `Could not reach ${this.#host}: ${reason(error)}.`, { retryable: true }),
        });
      let stream: http2.ClientHttp2Stream;
      try {
        stream = session.http2.request({
          ':method': request.method,
          ':path': request.path,
          ...request.headers,
          ...(body === undefined ? {} : { 'content-length': String(body.length) }),
        });
      } catch (error) {
        // The session went away between choosing it and starting the stream (GOAWAY, destroyed).
        session.closing = true;
        lost(error);
        return;
      }
      timer = setTimeout(
        () => {
          stream.close(http2.constants.NGHTTP2_CANCEL);
          // The server may have the request: not sent again here (the caller's retry policy decides).
          settle({
            ok: false,
            sessionFailure: false,
            failure: failure('timeout', `No answer from ${this.#host} within ${request.timeoutMs} ms.`, {
              retryable: true,
              uncertain: true,
            }),
          });
        },
        Math.max(0, deadline - Date.now()),
      );
      let status = 0;
      let headers: Record<string, string> = {};
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('response', (responseHeaders) => {
        answered = true;
        status = Number(responseHeaders[HTTP2_HEADER_STATUS] ?? 0);
        headers = flatten(responseHeaders);
      });
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      });
      stream.on('end', () => {
        if (answered) settle({ ok: true, status, headers, body: Buffer.concat(chunks).toString('utf8') });
      });
      stream.on('error', (error) => lost(error));
      stream.on('close', () => {
        if (settled) return;
        if (answered && stream.rstCode === http2.constants.NGHTTP2_NO_ERROR) return;
        // REFUSED_STREAM (and a stream cut by GOAWAY) was never processed; any other reset before an answer is the session's failure too.
        lost(
          new Error(stream.rstCode === NGHTTP2_REFUSED_STREAM ? 'stream refused' : `stream reset (${stream.rstCode})`),
        );
      });
      stream.end(body);
    });
  }

  #timeout(request: H2Request): SendFailure {
    return failure('timeout', `No stream to ${this.#host} free within ${request.timeoutMs} ms.`, { retryable: true });
  }
}

// Once an answer: a loop over the keys rather than Object.entries, which made an array a header.
function flatten(headers: http2.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (name.startsWith(':') || value === undefined) continue;
    flat[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return flat;
}

function reason(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string') return code;
  return typeof message === 'string' && message !== '' ? message : 'connection failed';
}
