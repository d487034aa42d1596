// Reading a request body within BODY_LIMIT, and, for a caller the access
// policy may refuse, deciding before the rest of it is read
// (docs/security.md#refused-before-the-body).
import type { IncomingMessage, ServerResponse } from 'node:http';
import bodyParser from 'body-parser';
import { sendText } from './respond';

/**
 * A look at the start of a body that may refuse the request before the rest
 * is read: `inspect` sees each chunk until it answers; `decide` then says
 * whether to read on (true) or has answered the request itself (false).
 */
export interface BodyGate {
  /** Undefined: show me more. Otherwise what was learnt, handed to `decide`. */
  inspect(chunk: Buffer, sizeSoFar: number): 'decide' | undefined;
  decide(): boolean | Promise<boolean>;
}

/**
 * Hands `done` the whole body, or null once the request has been answered
 * (a failure, or the gate's refusal). A callback rather than a promise: the
 * calls go on from the body's last event in the same turn
 * (docs/benchmark.md#fourth-round). `done` is called once, never synchronously
 * with a body; a throw from it is the caller's (the `.asmx` calls catch their own).
 */
export type RawBodyReader = (
  req: IncomingMessage,
  res: ServerResponse,
  gate: BodyGate | undefined,
  done: (body: Buffer | null) => void,
) => void;

/** Reads the whole body within `limit`; on failure (or a gate's refusal) answers the request itself and hands on null. */
export function createBodyReader(limit: number): RawBodyReader {
  const readCompressed = bodyParser.raw({ type: () => true, limit });
  return (req, res, gate, done) => {
    const encoding = req.headers['content-encoding'];
    if (encoding === undefined || encoding === 'identity') {
      readPlainBody(req, res, limit, gate, done);
      return;
    }
    // A compressed body (rare from SOAP clients) is inflated whole: a gate decides before it, on what it already knows.
    const inflated =
      gate === undefined
        ? readCompressedBody(readCompressed, req, res, limit)
        : Promise.resolve(gate.decide()).then((goOn) =>
            goOn ? readCompressedBody(readCompressed, req, res, limit) : null,
          );
    void inflated.then(done);
  };
}

/** body-parser inflates it, the limit applying to what it inflates to. */
function readCompressedBody(
  readBody: ReturnType<typeof bodyParser.raw>,
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
): Promise<Buffer | null> {
  return new Promise((resolve) => {
    void readBody(req, res, (err?: unknown) => {
      if (err === undefined || err === null) {
        const parsed = (req as IncomingMessage & { body?: unknown }).body;
        resolve(Buffer.isBuffer(parsed) ? parsed : Buffer.alloc(0));
        return;
      }
      const type = (err as { type?: string }).type;
      if (type === 'entity.too.large') refuseTooLarge(res, limit);
      else if (type === 'encoding.unsupported') sendText(res, 415, 'Unsupported Content-Encoding.');
      else if (type === 'request.aborted') res.destroy();
      else sendText(res, 400, 'The request body could not be read.');
      resolve(null);
    });
  });
}

/**
 * The plain body, read straight off the stream: the common case, on the hot
 * path, where body-parser's general machinery cost a measurable share of a
 * small SOAP call. With a gate, reading pauses while it decides.
 */
function readPlainBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  gate: BodyGate | undefined,
  resolve: (body: Buffer | null) => void,
): void {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    refuseTooLarge(res, limit);
    resolve(null);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  let pending = gate;
  let deciding = false;
  let ended = false;
  const finish = () => {
    settled = true;
    resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
  };
  const refused = () => {
    settled = true;
    // The gate has answered (Connection: close): the rest is let through unread until the socket closes.
    req.resume();
    resolve(null);
  };
  const decideNow = (gateNow: BodyGate) => {
    pending = undefined;
    const verdict = gateNow.decide();
    const apply = (goOn: boolean) => {
      deciding = false;
      if (settled) return;
      if (!goOn) refused();
      else if (ended) finish();
      else req.resume();
    };
    if (verdict instanceof Promise) {
      deciding = true;
      req.pause();
      verdict.then(apply, () => apply(false));
    } else apply(verdict);
  };
  req.on('data', (chunk: Buffer) => {
    if (settled) return;
    size += chunk.length;
    if (size > limit) {
      settled = true;
      refuseTooLarge(res, limit);
      resolve(null);
      return;
    }
    chunks.push(chunk);
    if (pending !== undefined && pending.inspect(chunk, size) === 'decide') decideNow(pending);
  });
  req.on('end', () => {
    if (settled) return;
    ended = true;
    if (pending !== undefined) decideNow(pending);
    else if (!deciding) finish();
  });
  req.on('error', () => {
    if (settled) return;
    settled = true;
    res.destroy();
    resolve(null);
  });
}

/** The rest of an oversized body is not read: the connection closes after the answer. */
function refuseTooLarge(res: ServerResponse, limit: number): void {
  res.setHeader('Connection', 'close');
  sendText(res, 413, `Request body exceeds the limit of ${limit} bytes.`);
}
