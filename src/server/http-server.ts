// The HTTP server the service listens with, and what it allows a connection
// (docs/operating.md#connections): how long the headers, a whole request and
// an idle keep-alive may take, how slowly a body may arrive, how many
// connections may be open at once (in all and per address), and a plain-text
// answer to a request Node cannot parse instead of a reset connection.
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import proxyaddr from 'proxy-addr';
import { NOSNIFF } from '../wire/respond';

export interface ConnectionLimits {
  /** From the connection's first byte (or the previous request's end) to the end of the headers. */
  readonly headersTimeoutMs: number;
  /** From the start of a request to the end of its body (not the time the operation takes). */
  readonly requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  readonly keepAliveTimeoutMs: number;
  /** Open connections in all; at the cap, an idle one is closed to make room, else the new one is refused. */
  readonly maxConnections: number;
  /** Open connections per client address, the same way; 0: no such cap. */
  readonly maxConnectionsPerAddress: number;
  /**
   * Addresses the per-address cap does not apply to: the proxies TRUST_PROXY
   * trusts, whose connections carry every client behind them. None when left out.
   */
  readonly exemptFromAddressCap?: (address: string) => boolean;
  /**
   * Bytes a second a request body must arrive at, averaged over the last
   * BODY_RATE_WINDOW_MS once it has been under way for BODY_RATE_GRACE_MS;
   * slower, it is cut off with a 408, and at the connection cap it gives way
   * as an idle connection does. 0: no minimum.
   */
  readonly bodyMinRate: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 4096,
  maxConnectionsPerAddress: 64,
  bodyMinRate: 1024,
};

/**
 * Connections beyond the caps that only a health probe may use: one over a
 * cap with nothing to close is let in on probation, and its request is
 * answered only if it is `GET /healthz` or `/readyz` (anything else gets the
 * 503 it would have had), so that a flood of slow bodies holding every slot
 * cannot make a load balancer take a working node out (docs/operating.md#connections).
 */
export const PROBE_RESERVE = 64;
/** How long a connection on probation may take to send its request's headers: a probe sends them at once. */
const PROBE_HEADERS_MS = 2000;
/**
 * With the reserve full, a connection on it that has sent nothing for this
 * long gives way to a new one; younger ones are left be and the new one is
 * refused, so that a burst of new connections cannot push out a probe whose
 * headers are on their way.
 */
export const PROBE_PATIENCE_MS = 250;
const PROBE_PATHS = new Set(['/healthz', '/readyz']);

/** A body is not judged before it has been under way this long. */
export const BODY_RATE_GRACE_MS = 1000;
/** Its rate is averaged over this much of its recent past. */
export const BODY_RATE_WINDOW_MS = 5000;
// How often bodies under way are looked at: a slow one is cut off between
// BODY_RATE_GRACE_MS and that plus twice this after its headers.
const BODY_SWEEP_MS = 500;
// At the cap, a body this long under way and slower than the minimum gives way
// to a new connection: judged on less than the grace, since the server is full.
const BODY_EVICT_AFTER_MS = 250;

// How long a refused connection may keep sending before it is closed: the
// rest of its request is read and dropped meanwhile, because closing a socket
// with unread bytes makes the kernel reset it, and the client then loses the
// answer it was sent.
const LINGER_MS = 1000;

/**
 * Whether a connection's address is a proxy TRUST_PROXY trusts (its value as
 * loadConfig gives it): `true` or a hop count trusts every address the
 * connection can come from, a list the addresses and ranges it names.
 */
export function trustedProxy(trust: boolean | number | string): (address: string) => boolean {
  if (typeof trust === 'boolean') return () => trust;
  if (typeof trust === 'number') return () => trust > 0;
  const compiled = proxyaddr.compile(trust.split(',').map((entry) => entry.trim()));
  return (address) => compiled(address, 0);
}

/** Listens with these connection limits (the defaults for those left out); resolves once the port is bound. */
export function listen(
  listener: RequestListener,
  port: number,
  host: string,
  limits: Partial<ConnectionLimits> = {},
): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createHttpServer(listener, { ...DEFAULT_CONNECTION_LIMITS, ...limits });
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

/** An HTTP server for `listener` with these limits; not yet listening. */
export function createHttpServer(listener: RequestListener, limits: ConnectionLimits): Server {
  const server = createServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node looks for requests over their time every this often (30 s by default, too coarse for the limits above).
    connectionsCheckingInterval: Math.max(50, Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4),
  });
  const onProbation = guardConnections(server, limits);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const refusal = onProbation.refusal(req.socket);
    if (refusal === undefined) {
      listener(req, res);
      return;
    }
    const target = req.url ?? '';
    const pathname = target.split('?', 1)[0] ?? '';
    if ((req.method === 'GET' || req.method === 'HEAD') && PROBE_PATHS.has(pathname)) {
      // Answered, then closed: the reserve is for one probe at a time, not for keep-alive.
      res.shouldKeepAlive = false;
      listener(req, res);
      return;
    }
    // Refused: it no longer holds a place in the reserve while the rest of its request is read and dropped.
    onProbation.release(req.socket);
    refuse(req.socket, refusal);
  });
  server.on(
    'clientError',
    (err: NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number }, socket: Socket) =>
      answerClientError(err, socket),
  );
  return server;
}

// ---- connection caps ----------------------------------------------------

/**
 * A connection is idle when no request of it is being answered: Node attaches
 * the response in progress to its socket (`_httpMessage`) from the end of the
 * request's headers until the answer is finished. Looked up only at the cap,
 * so that the calls pay nothing for it.
 */
function isIdle(socket: Socket): boolean {
  return (socket as Socket & { _httpMessage?: unknown })._httpMessage == null;
}

/** The request whose body is still arriving on `socket`, unanswered; undefined when there is none. */
function bodyUnderWay(socket: Socket): IncomingMessage | undefined {
  const res = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (res == null || res.headersSent) return undefined;
  const req = res.req as IncomingMessage | undefined;
  return req === undefined || req.complete ? undefined : req;
}

/**
 * A body under way, as the sweep saw it: the socket's byte count at each look
 * within the window, oldest first. Counted on the socket (bytes Node's parser
 * took in), so that a body reader need do nothing, whichever reads it: the
 * operation calls, the admin API, any route.
 */
interface BodyWatch {
  readonly req: IncomingMessage;
  readonly since: number;
  readonly times: number[];
  readonly bytes: number[];
}

/** Bytes a second over the watch's window, up to now. */
function rateOf(watch: BodyWatch, socket: Socket, now: number): number {
  const elapsed = now - watch.times[0];
  return elapsed <= 0 ? Infinity : ((socket.bytesRead - watch.bytes[0]) * 1000) / elapsed;
}

/** What the request listener asks of the connections on probation (PROBE_RESERVE). */
interface Probation {
  /** The refusal a connection on probation had; undefined for the others. */
  refusal(socket: Socket): string | undefined;
  /** Gives up the connection's place in the reserve. */
  release(socket: Socket): void;
}

/** Guards the server's connections. */
function guardConnections(server: Server, limits: ConnectionLimits): Probation {
  // In the order they opened, oldest first: the first idle one is the one closed to make room.
  const open = new Set<Socket>();
  // Kept only with a per-address cap (MAX_CONNECTIONS_PER_ADDRESS); off, a connection costs no lookup.
  const perAddress = limits.maxConnectionsPerAddress;
  const byAddress = new Map<string, Set<Socket>>();
  const exempt = limits.exemptFromAddressCap ?? (() => false);
  // Connections over a cap let in for a health probe, oldest first.
  const probation = new Map<Socket, { readonly refusal: string; readonly since: number }>();

  /** Over a cap with nothing to close: on probation if the reserve has room (or one on it has sent nothing for PROBE_PATIENCE_MS), else refused. */
  const admitOnProbation = (socket: Socket, message: string) => {
    const now = Date.now();
    // Over an address's cap with room left in all, that room is used too: a burst of new connections from the
    // address then leaves the reserve to everyone else.
    if (probation.size >= PROBE_RESERVE && open.size + probation.size >= limits.maxConnections) {
      const waiting = [...probation].find(([s, p]) => isIdle(s) && now - p.since >= PROBE_PATIENCE_MS);
      if (waiting === undefined) {
        refuse(socket, message);
        return;
      }
      probation.delete(waiting[0]);
      refuse(waiting[0], waiting[1].refusal);
    }
    probation.set(socket, { refusal: message, since: now });
    const deadline = setTimeout(() => {
      if (isIdle(socket)) refuse(socket, message);
    }, PROBE_HEADERS_MS);
    deadline.unref();
    socket.once('close', () => {
      clearTimeout(deadline);
      probation.delete(socket);
    });
  };

  const minRate = limits.bodyMinRate;
  // Bodies under way, from their headers, looked at every BODY_SWEEP_MS (and only when there is a minimum rate).
  const watches = new WeakMap<Socket, BodyWatch>();

  /** A body slower than the minimum: at the cap it gives way (`evicting`), otherwise once past the grace. */
  const tooSlow = (socket: Socket, now: number, evicting: boolean): boolean => {
    const watch = watches.get(socket);
    if (watch === undefined || bodyUnderWay(socket) !== watch.req) return false;
    if (now - watch.since < (evicting ? BODY_EVICT_AFTER_MS : BODY_RATE_GRACE_MS)) return false;
    return rateOf(watch, socket, now) < minRate;
  };

  const cutSlowBody = (socket: Socket) => {
    forget(socket);
    answerRaw(socket, 408, 'Request Timeout', 'The request body arrived too slowly.');
  };

  // Oldest first: the first idle connection, or the first whose body is too slow, is closed to make room.
  const closeIdleAmong = (sockets: Iterable<Socket>): boolean => {
    const now = minRate > 0 ? Date.now() : 0;
    for (const socket of sockets) {
      if (isIdle(socket)) {
        forget(socket);
        socket.destroy();
        return true;
      }
      if (minRate > 0 && tooSlow(socket, now, true)) {
        cutSlowBody(socket);
        return true;
      }
    }
    return false;
  };

  const sweepBodies = () => {
    const now = Date.now();
    for (const socket of open) {
      const req = bodyUnderWay(socket);
      let watch = watches.get(socket);
      if (req === undefined) {
        if (watch !== undefined) watches.delete(socket);
        continue;
      }
      // Paused by the server (a reader deciding, or not keeping up): not the client's doing, so judged afresh after.
      if (watch === undefined || watch.req !== req || socket.isPaused() || req.isPaused()) {
        watch = { req, since: now, times: [now], bytes: [socket.bytesRead] };
        watches.set(socket, watch);
        continue;
      }
      watch.times.push(now);
      watch.bytes.push(socket.bytesRead);
      while (watch.times.length > 2 && watch.times[1] <= now - BODY_RATE_WINDOW_MS) {
        watch.times.shift();
        watch.bytes.shift();
      }
      if (tooSlow(socket, now, false)) cutSlowBody(socket);
    }
  };
  if (minRate > 0) {
    // From the end of the headers: the grace counts from there, and a body is judged at the cap as soon as it may be.
    server.on('request', (req: IncomingMessage) => {
      const now = Date.now();
      watches.set(req.socket, { req, since: now, times: [now], bytes: [req.socket.bytesRead] });
    });
    const sweep = setInterval(sweepBodies, BODY_SWEEP_MS);
    sweep.unref();
    server.on('close', () => clearInterval(sweep));
  }

  const forget = (socket: Socket) => {
    if (!open.delete(socket) || perAddress === 0) return;
    const address = socket.remoteAddress ?? '';
    const mine = byAddress.get(address);
    mine?.delete(socket);
    if (mine?.size === 0) byAddress.delete(address);
  };

  server.on('connection', (socket: Socket) => {
    const capped = perAddress > 0 && !exempt(socket.remoteAddress ?? '');
    if (capped) {
      const mine = byAddress.get(socket.remoteAddress ?? '');
      if (mine !== undefined && mine.size >= perAddress && !closeIdleAmong(mine)) {
        admitOnProbation(socket, 'Too many connections from this address.');
        return;
      }
    }
    if (open.size >= limits.maxConnections && !closeIdleAmong(open)) {
      admitOnProbation(socket, 'Too many connections.');
      return;
    }
    open.add(socket);
    if (capped) {
      // Looked up again: closing an idle connection above may have emptied and dropped this address's set.
      const address = socket.remoteAddress ?? '';
      const mine = byAddress.get(address);
      if (mine === undefined) byAddress.set(address, new Set([socket]));
      else mine.add(socket);
    }
    socket.once('close', () => forget(socket));
  });
  return {
    refusal: (socket) => probation.get(socket)?.refusal,
    release: (socket) => probation.delete(socket),
  };
}

/** A connection over the cap with every other one busy: a 503, before any request is read. */
function refuse(socket: Socket, message: string): void {
  answerRaw(socket, 503, 'Service Unavailable', message, { 'Retry-After': '1' });
}

// ---- requests Node could not read --------------------------------------

/**
 * Node's own answer to a request it could not parse is written and followed
 * at once by a close with the rest of the request unread: the client gets a
 * reset, often instead of the answer. Each is answered here in one line of
 * plain text, and the connection is closed once the client has sent the rest.
 */
function answerClientError(
  err: NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number },
  socket: Socket,
): void {
  const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || pending?.headersSent === true || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      answerRaw(socket, 408, 'Request Timeout', 'The request was not received in time.');
      return;
    case 'HPE_HEADER_OVERFLOW':
      if (inRequestLine(err)) answerRaw(socket, 414, 'URI Too Long', 'The request URL is too long.');
      else answerRaw(socket, 431, 'Request Header Fields Too Large', 'The request headers are too large.');
      return;
    default:
      answerRaw(socket, 400, 'Bad Request', 'The request could not be read.');
  }
}

/**
 * Whether the overflow happened before the end of the request line: no line
 * break since the last request began. Node hands over only the piece being
 * parsed when its limit was passed (its parser reads the socket itself, so
 * the earlier pieces cannot be seen): a single header over the limit whose
 * last piece holds no line break is answered 414 too. Blaming the headers in
 * that case instead answers a long URL arriving in pieces, the likelier of
 * the two, with a 431 (tried, and found by the fuzz suite); either way the
 * caller gets a plain-text refusal rather than a reset.
 */
function inRequestLine(err: { rawPacket?: Buffer; bytesParsed?: number }): boolean {
  const packet = err.rawPacket;
  if (packet === undefined) return false;
  const parsed = packet.subarray(0, err.bytesParsed ?? packet.length);
  const start = parsed.lastIndexOf('\r\n\r\n');
  return parsed.indexOf('\n', start < 0 ? 0 : start + 4) < 0;
}

const handled = new WeakSet<Socket>();

function answerRaw(
  socket: Socket,
  status: number,
  reason: string,
  message: string,
  extra: Record<string, string> = {},
): void {
  // Node may report the same broken request again as more of it arrives.
  if (handled.has(socket)) return;
  handled.add(socket);
  const body = `${message}\r\n`;
  const headers = {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': 'private',
    'X-Content-Type-Options': NOSNIFF,
    ...extra,
    Connection: 'close',
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\r\n');
  // Whatever else the client sends is read and dropped until the linger ends.
  socket.removeAllListeners('data');
  socket.on('data', () => undefined);
  socket.on('error', () => undefined);
  socket.resume();
  socket.end(`HTTP/1.1 ${status} ${reason}\r\n${head}\r\n\r\n${body}`);
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
