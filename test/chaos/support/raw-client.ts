// A keep-alive HTTP/1.1 client that sends bytes exactly as given (a broken
// URL, a lying Content-Length, a header no library would write) and reads the
// answer off the socket, one request at a time per connection. A connection
// the server closes is opened again for the next request.
import net from 'node:net';
import { HttpMessageSplitter, headerValue, statusOf, type HttpMessage } from '../../support/http-messages';

export interface Answered {
  readonly kind: 'answer';
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Buffer;
  /** From the first byte written to the last byte of the answer read. */
  readonly ms: number;
}

/** The server closed (or reset) the connection without an answer, or none came in time. */
export interface Unanswered {
  readonly kind: 'closed' | 'timeout';
  readonly ms: number;
}

export type Outcome = Answered | Unanswered;

export function header(answer: Answered, name: string): string | undefined {
  return headerValue({ startLine: '', headers: answer.headers }, name);
}

export class RawClient {
  #socket: net.Socket | null = null;
  #pending: ((outcome: HttpMessage | 'closed') => void) | null = null;

  constructor(
    private readonly port: number,
    private readonly host = '127.0.0.1',
  ) {}

  /**
   * Writes `request` and waits for one whole answer. `endAfterWrite` half-closes
   * the connection after the bytes (a client that gives up mid-body).
   */
  async send(request: Buffer, options: { timeoutMs?: number; endAfterWrite?: boolean } = {}): Promise<Outcome> {
    const timeoutMs = options.timeoutMs ?? 10_000;
    const socket = this.#socket ?? this.#connect();
    const started = performance.now();
    const settled = new Promise<HttpMessage | 'closed' | 'timeout'>((resolve) => {
      const timer = setTimeout(() => resolve('timeout'), timeoutMs);
      this.#pending = (outcome) => {
        clearTimeout(timer);
        resolve(outcome);
      };
    });
    socket.write(request);
    if (options.endAfterWrite === true) socket.end();
    const outcome = await settled;
    this.#pending = null;
    const ms = performance.now() - started;
    if (outcome === 'closed' || outcome === 'timeout') {
      this.close();
      return { kind: outcome, ms };
    }
    const closes = /close/i.test(headerValue(outcome.head, 'connection') ?? '') || options.endAfterWrite === true;
    if (closes) this.close();
    return { kind: 'answer', status: statusOf(outcome.head), headers: outcome.head.headers, body: outcome.body, ms };
  }

  close(): void {
    this.#socket?.destroy();
    this.#socket = null;
  }

  #connect(): net.Socket {
    const socket = net.connect(this.port, this.host);
    socket.setNoDelay(true);
    // Only the current connection answers the pending request: a connection
    // dropped earlier may report its close after the next one opened.
    const splitter = new HttpMessageSplitter('response', (message) => {
      if (this.#socket === socket) this.#pending?.(message);
    });
    socket.on('data', (chunk: Buffer) => splitter.push(chunk));
    socket.on('end', () => splitter.end());
    // A reset or a close before the answer: the request is unanswered.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      this.#pending?.('closed');
    });
    this.#socket = socket;
    return socket;
  }
}

/** A request's bytes: start line, headers in order (Host first unless given), body. */
export function rawRequest(
  method: string,
  target: string | Buffer,
  headers: ReadonlyArray<readonly [string, string | Buffer]>,
  body?: Buffer | string,
): Buffer {
  const parts: Buffer[] = [
    Buffer.from(`${method} `, 'latin1'),
    Buffer.isBuffer(target) ? target : Buffer.from(target, 'latin1'),
    Buffer.from(' HTTP/1.1\r\n', 'latin1'),
  ];
  const hasHost = headers.some(([name]) => name.toLowerCase() === 'host');
  if (!hasHost) parts.push(Buffer.from('Host: 127.0.0.1\r\n', 'latin1'));
  for (const [name, value] of headers)
    parts.push(
      Buffer.from(`${name}: `, 'latin1'),
      Buffer.isBuffer(value) ? value : Buffer.from(value, 'latin1'),
      Buffer.from('\r\n', 'latin1'),
    );
  parts.push(Buffer.from('\r\n', 'latin1'));
  if (body !== undefined) parts.push(Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'));
  return Buffer.concat(parts);
}
