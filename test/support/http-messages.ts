// Splits a byte stream of HTTP/1.x messages into whole messages, keeping the
// exact bytes. The interop relay uses it to record what real clients send, and
// the replay test to read fixtures and the service's answers off a socket.

export interface HttpHead {
  /** `POST /X.asmx HTTP/1.1` or `HTTP/1.1 200 OK`. */
  readonly startLine: string;
  /** Names and values as sent, in order. */
  readonly headers: readonly (readonly [string, string])[];
}

export interface HttpMessage {
  /** Every byte of the message: head, blank line and body as framed on the wire. */
  readonly raw: Buffer;
  readonly head: HttpHead;
  /** The body, de-chunked when it was sent chunked. */
  readonly body: Buffer;
}

export type MessageKind = 'request' | 'response';

const HEAD_END = Buffer.from('\r\n\r\n');

export function headerValue(head: HttpHead, name: string): string | undefined {
  const wanted = name.toLowerCase();
  return head.headers.find(([key]) => key.toLowerCase() === wanted)?.[1];
}

export function statusOf(head: HttpHead): number {
  return Number(head.startLine.split(' ')[1]);
}

export function parseHead(bytes: Buffer): HttpHead {
  const lines = bytes.toString('latin1').split('\r\n');
  const headers = lines.slice(1).map((line): [string, string] => {
    const colon = line.indexOf(':');
    return [line.slice(0, colon), line.slice(colon + 1).trim()];
  });
  return { startLine: lines[0], headers };
}

type Framing =
  | { readonly kind: 'length'; readonly length: number }
  | { readonly kind: 'chunked' }
  | { readonly kind: 'until-close' };

function framingOf(kind: MessageKind, head: HttpHead): Framing {
  if (kind === 'response') {
    const status = statusOf(head);
    if ((status >= 100 && status < 200) || status === 204 || status === 304) return { kind: 'length', length: 0 };
  }
  if (/chunked/i.test(headerValue(head, 'transfer-encoding') ?? '')) return { kind: 'chunked' };
  const length = headerValue(head, 'content-length');
  if (length !== undefined) return { kind: 'length', length: Number(length) };
  return kind === 'request' ? { kind: 'length', length: 0 } : { kind: 'until-close' };
}

/** The end of a chunked body starting at `start` and the de-chunked bytes, or null while incomplete. */
function readChunked(buffer: Buffer, start: number): { end: number; body: Buffer } | null {
  const parts: Buffer[] = [];
  let at = start;
  for (;;) {
    const lineEnd = buffer.indexOf('\r\n', at);
    if (lineEnd < 0) return null;
    const size = parseInt(buffer.subarray(at, lineEnd).toString('latin1').split(';')[0], 16);
    at = lineEnd + 2;
    if (size === 0) {
      // Trailers, if any, end with an empty line.
      const trailersEnd = buffer.indexOf('\r\n', at);
      if (trailersEnd < 0) return null;
      if (trailersEnd === at) return { end: at + 2, body: Buffer.concat(parts) };
      const end = buffer.indexOf(HEAD_END, at);
      return end < 0 ? null : { end: end + 4, body: Buffer.concat(parts) };
    }
    if (buffer.length < at + size + 2) return null;
    parts.push(buffer.subarray(at, at + size));
    at += size + 2;
  }
}

/**
 * Feed it bytes as they arrive; it calls `onMessage` once per whole message.
 * Interim responses (`100 Continue`) are dropped: they answer no request.
 */
export class HttpMessageSplitter {
  private buffer = Buffer.alloc(0);

  constructor(
    private readonly kind: MessageKind,
    private readonly onMessage: (message: HttpMessage) => void,
  ) {}

  push(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    while (this.takeOne(false));
  }

  /** The stream ended: a response framed by the connection's close is complete now. */
  end(): void {
    while (this.takeOne(true));
  }

  private takeOne(ended: boolean): boolean {
    const headEnd = this.buffer.indexOf(HEAD_END);
    if (headEnd < 0) return false;
    const head = parseHead(this.buffer.subarray(0, headEnd));
    const bodyStart = headEnd + 4;
    const framing = framingOf(this.kind, head);
    let end: number;
    let body: Buffer;
    if (framing.kind === 'length') {
      end = bodyStart + framing.length;
      if (this.buffer.length < end) return false;
      body = this.buffer.subarray(bodyStart, end);
    } else if (framing.kind === 'chunked') {
      const chunked = readChunked(this.buffer, bodyStart);
      if (chunked === null) return false;
      ({ end, body } = chunked);
    } else {
      if (!ended) return false;
      end = this.buffer.length;
      body = this.buffer.subarray(bodyStart);
    }
    const raw = Buffer.from(this.buffer.subarray(0, end));
    this.buffer = this.buffer.subarray(end);
    const interim = this.kind === 'response' && statusOf(head) >= 100 && statusOf(head) < 200;
    if (!interim) this.onMessage({ raw, head, body: Buffer.from(body) });
    return true;
  }
}

/** Reads one whole message from bytes that hold exactly one (a fixture file). */
export function parseMessage(kind: MessageKind, bytes: Buffer): HttpMessage {
  const found: HttpMessage[] = [];
  const splitter = new HttpMessageSplitter(kind, (message) => found.push(message));
  splitter.push(bytes);
  splitter.end();
  if (found.length !== 1) throw new Error(`expected one HTTP ${kind}, found ${found.length}`);
  return found[0];
}
