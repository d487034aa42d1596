// What a connection may hold of the server (docs/operating.md#connections):
// a request sent slowly is cut off after its time, idle connections give way
// when the cap is reached, and /healthz keeps answering through a flood.
// Small limits keep the tests short; Node's defaults held such a request for
// minutes.
import net from 'node:net';
import {
  DEFAULT_CONNECTION_LIMITS,
  PROBE_PATIENCE_MS,
  PROBE_RESERVE,
  trustedProxy,
  type ConnectionLimits,
} from '../../src/server/http-server';
import { ADMIN_TOKEN, startOperatedService, type OperatedService } from '../support/operated-service';
import { listenOnLoopback, type LoopbackListener } from '../support/service';
import { storeVariants } from '../support/stores';

const [sqlite] = storeVariants();

let service: OperatedService;
beforeAll(async () => {
  service = await startOperatedService(sqlite);
});
afterAll(() => service.stop());

let listener: LoopbackListener | undefined;
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await listener?.close();
  listener = undefined;
});

async function serve(limits: Partial<ConnectionLimits>): Promise<LoopbackListener> {
  listener = await listenOnLoopback(service.app, limits);
  return listener;
}

/** A connection to the server, closed after the test. */
function connect(port: number, localAddress = '127.0.0.1'): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress }, () => resolve(socket));
    socket.on('error', () => undefined);
    socket.once('error', reject);
    sockets.push(socket);
  });
}

/** Everything the server sends until it closes the connection. */
function untilClosed(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('close', () => resolve(text));
  });
}

/** Writes one byte every `everyMs` until the connection closes. */
function trickle(socket: net.Socket, text: string, everyMs: number): void {
  let next = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || !socket.writable) clearInterval(timer);
    else socket.write(text.charAt(next++ % text.length));
  }, everyMs);
  socket.on('close', () => clearInterval(timer));
}

/** One request on a connection of its own, the whole answer as text (Connection: close). */
async function get(port: number, path: string, localAddress?: string): Promise<string> {
  const socket = await connect(port, localAddress);
  const answer = untilClosed(socket);
  socket.write(`GET ${path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n`);
  return answer;
}

/** A connection whose request is under way: the server has read its headers (it said 100 Continue), the body is not sent. */
async function busy(port: number, localAddress?: string): Promise<net.Socket> {
  const socket = await connect(port, localAddress);
  const continued = new Promise((resolve) => socket.once('data', resolve));
  socket.write(
    'POST /PushNotificationMobile.asmx HTTP/1.1\r\nHost: test\r\nContent-Type: text/xml\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n',
  );
  await continued;
  return socket;
}

/** Waits until the server has accepted `count` connections. */
async function accepted(server: LoopbackListener, count: number): Promise<void> {
  while ((await server.connections()) < count) await new Promise((resolve) => setTimeout(resolve, 10));
}

const TIMED_OUT =
  /^HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*Content-Type: text\/plain; charset=utf-8\r\n[\s\S]*\r\n\r\nThe request was not received in time\.\r\n$/;
const SHORT = { headersTimeoutMs: 300, requestTimeoutMs: 600 };

describe('slow requests', () => {
  it('cuts off a body trickled a byte at a time after the request timeout, with a 408', async () => {
    const { port } = await serve(SHORT);
    const socket = await connect(port);
    const answer = untilClosed(socket);
    socket.write(
      'POST /PushNotificationMobile.asmx HTTP/1.1\r\nHost: test\r\nContent-Type: text/xml\r\nContent-Length: 10000\r\n\r\n',
    );
    trickle(socket, '<soap:Envelope/>', 50);
    expect(await answer).toMatch(TIMED_OUT);
  }, 10_000);

  it('cuts off headers trickled a byte at a time after the headers timeout, with a 408', async () => {
    const { port } = await serve(SHORT);
    const socket = await connect(port);
    const answer = untilClosed(socket);
    socket.write('GET /healthz HTTP/1.1\r\nHost: test\r\n');
    trickle(socket, 'X-Slow: abcdefgh\r\n', 50);
    expect(await answer).toMatch(TIMED_OUT);
  }, 10_000);
});

const TOO_SLOW =
  /^HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*Content-Type: text\/plain; charset=utf-8\r\n[\s\S]*Connection: close\r\n\r\nThe request body arrived too slowly\.\r\n$/;

describe('a minimum rate for bodies (BODY_MIN_RATE)', () => {
  // A body sent slower than the minimum, well within the request timeout: every reader of a body alike.
  it.each([
    [
      'a SOAP call',
      'POST /PushNotificationMobile.asmx HTTP/1.1\r\nHost: test\r\nContent-Type: text/xml\r\nContent-Length: 10000\r\n\r\n',
    ],
    [
      'an HTTP POST call',
      'POST /PushNotificationMobile.asmx/GetTokenDevice HTTP/1.1\r\nHost: test\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 10000\r\n\r\n',
    ],
    [
      'the admin API',
      `POST /admin/api/v1/students HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n`,
    ],
  ])(
    'cuts off %s whose body trickles below the minimum with a 408, long before the request timeout',
    async (_name, head) => {
      const { port } = await serve({ bodyMinRate: 1024 });
      const socket = await connect(port);
      const answer = untilClosed(socket);
      const started = Date.now();
      socket.write(head);
      trickle(socket, 'x', 100);
      expect(await answer).toMatch(TOO_SLOW);
      // The grace (1 s) and two sweeps at most; the request timeout is 30 s.
      expect(Date.now() - started).toBeLessThan(3000);
    },
    10_000,
  );

  it('lets a body through that arrives at the minimum or faster, however long it takes', async () => {
    const { port } = await serve({ bodyMinRate: 1024 });
    const socket = await connect(port);
    const answer = untilClosed(socket);
    const body = `id=${'1'.repeat(5000)}`;
    socket.write(
      `POST /PushNotificationMobile.asmx/GetTokenDevice HTTP/1.1\r\nHost: test\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    // 400 bytes every 200 ms: 2,000 B/s for 2.5 s.
    for (let at = 0; at < body.length; at += 400) {
      socket.write(body.slice(at, at + 400));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(await answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  }, 10_000);

  it('at the cap, closes a connection whose body is too slow to make room', async () => {
    const server = await serve({ maxConnections: 3, bodyMinRate: 1024 });
    const slow: net.Socket[] = [];
    for (let i = 0; i < 3; i++) {
      const socket = await busy(server.port);
      trickle(socket, 'x', 200);
      slow.push(socket);
    }
    const cut = untilClosed(slow[0]);
    // Long enough for the sweep to have seen them, not for the grace to cut them.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await get(server.port, '/healthz')).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\{"status":"pass",/);
    expect(await cut).toMatch(/HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*The request body arrived too slowly\.\r\n$/);
  }, 10_000);

  it('with BODY_MIN_RATE off, leaves a slow body to the request timeout', async () => {
    const { port } = await serve({ bodyMinRate: 0, headersTimeoutMs: 1000, requestTimeoutMs: 2500 });
    const socket = await connect(port);
    const answer = untilClosed(socket);
    socket.write(
      'POST /PushNotificationMobile.asmx HTTP/1.1\r\nHost: test\r\nContent-Type: text/xml\r\nContent-Length: 10000\r\n\r\n',
    );
    trickle(socket, 'x', 100);
    expect(await answer).toMatch(TIMED_OUT);
  }, 10_000);
});

// The requests under way below wait for their bodies: with no minimum rate they stay busy however long that takes.
describe('the connection cap', () => {
  it('answers /healthz with as many idle connections open as the cap allows, closing an idle one', async () => {
    const server = await serve({ maxConnections: 8 });
    const idle = await Promise.all(Array.from({ length: 8 }, () => connect(server.port)));
    // Half of them idle after a request of their own (keep-alive), half never having sent one.
    for (const socket of idle.slice(0, 4)) socket.write('GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n');
    await Promise.all(idle.slice(0, 4).map((socket) => new Promise((resolve) => socket.once('data', resolve))));
    await accepted(server, 8);
    const closed = idle.map((socket) => new Promise((resolve) => socket.once('close', resolve)));

    expect(await get(server.port, '/healthz')).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\{"status":"pass",/);
    await Promise.race(closed);
    expect(await server.connections()).toBeLessThanOrEqual(8);
  });

  it('refuses a request with a 503 when every open connection has one under way, and still answers the health probes', async () => {
    const server = await serve({ maxConnections: 3, bodyMinRate: 0 });
    const calls: net.Socket[] = [];
    for (let i = 0; i < 3; i++) calls.push(await busy(server.port));
    expect(await get(server.port, '/NotificationNotes.asmx?wsdl')).toMatch(
      /^HTTP\/1\.1 503 Service Unavailable\r\n[\s\S]*Retry-After: 1\r\n[\s\S]*\r\n\r\nToo many connections\.\r\n$/,
    );
    // The reserve beyond the cap: a probe is answered, and its connection closed after it.
    expect(await get(server.port, '/healthz')).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\{"status":"pass",/);
    expect(await get(server.port, '/readyz?verbose')).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    // The requests under way were left alone: each still gets its answer.
    const body =
      '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body/></soap:Envelope>'.padEnd(100);
    const answers = calls.map(
      (socket) =>
        new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1')))),
    );
    for (const socket of calls) socket.write(body);
    for (const answer of await Promise.all(answers)) expect(answer).toMatch(/^HTTP\/1\.1 500 /);
  });

  it('at the cap with some requests under way and one connection idle, closes the idle one and leaves the others be', async () => {
    const server = await serve({ maxConnections: 3, bodyMinRate: 0 });
    const calls = [await busy(server.port), await busy(server.port)];
    const idle = await connect(server.port);
    await accepted(server, 3);
    const idleClosed = new Promise((resolve) => idle.once('close', resolve));

    expect(await get(server.port, '/healthz')).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\{"status":"pass",/);
    await idleClosed;
    const body =
      '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body/></soap:Envelope>'.padEnd(100);
    const answers = calls.map(
      (socket) =>
        new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1')))),
    );
    for (const socket of calls) socket.write(body);
    for (const answer of await Promise.all(answers)) expect(answer).toMatch(/^HTTP\/1\.1 500 /);
  });

  it('caps the connections of one address, and others still get in', async () => {
    const server = await serve({ maxConnectionsPerAddress: 2, bodyMinRate: 0 });
    for (let i = 0; i < 2; i++) await busy(server.port, '127.0.0.1');
    expect(await get(server.port, '/NotificationNotes.asmx?wsdl', '127.0.0.1')).toMatch(
      /^HTTP\/1\.1 503 [\s\S]*Too many connections from this address\.\r\n$/,
    );
    // The address's own health probe (a load balancer's check comes from one address) is answered.
    expect(await get(server.port, '/healthz', '127.0.0.1')).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(await get(server.port, '/NotificationNotes.asmx?wsdl', '127.0.0.2')).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  });

  it('caps one address at 64 requests under way by default, but not a proxy TRUST_PROXY trusts', async () => {
    expect(DEFAULT_CONNECTION_LIMITS.maxConnectionsPerAddress).toBe(64);
    const server = await serve({
      maxConnectionsPerAddress: 2,
      bodyMinRate: 0,
      exemptFromAddressCap: (a) => a === '127.0.0.3',
    });
    for (let i = 0; i < 3; i++) await busy(server.port, '127.0.0.3');
    expect(await get(server.port, '/NotificationNotes.asmx?wsdl', '127.0.0.3')).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(trustedProxy('loopback')('127.0.0.3')).toBe(true);
    expect(trustedProxy('10.0.0.0/8, 192.168.1.1')('192.168.1.1')).toBe(true);
    expect(trustedProxy('10.0.0.0/8')('127.0.0.1')).toBe(false);
    expect(trustedProxy(false)('127.0.0.1')).toBe(false);
    expect(trustedProxy(1)('127.0.0.1')).toBe(true);
  });

  it('keeps the reserve for probes: a connection on it that sends nothing gives way, and is closed soon', async () => {
    const server = await serve({ maxConnections: 1, bodyMinRate: 0 });
    await busy(server.port);
    const silent = await Promise.all(Array.from({ length: PROBE_RESERVE }, () => connect(server.port)));
    await accepted(server, 1 + PROBE_RESERVE);
    const closed = silent.map((socket) => untilClosed(socket));
    // Too young to give way: the newcomer is refused.
    expect(await get(server.port, '/healthz')).toMatch(/^HTTP\/1\.1 503 [\s\S]*Too many connections\.\r\n$/);
    await new Promise((resolve) => setTimeout(resolve, PROBE_PATIENCE_MS));
    expect(await get(server.port, '/healthz')).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    // The oldest silent one, silent for longer than the patience, gave way to the probe.
    expect(await Promise.race(closed)).toMatch(/^HTTP\/1\.1 503 [\s\S]*Too many connections\.\r\n$/);
    // A request other than a probe on the reserve gets the 503 it would have had.
    expect(await get(server.port, '/admin/api/v1/students')).toMatch(
      /^HTTP\/1\.1 503 [\s\S]*Too many connections\.\r\n$/,
    );
    // The others are closed once their time to send a request is over.
    const started = Date.now();
    await Promise.all(closed);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('still counts the connections of an address after its idle one was closed to make room', async () => {
    const server = await serve({ maxConnections: 3, maxConnectionsPerAddress: 2, bodyMinRate: 0 });
    const idle = await connect(server.port, '127.0.0.2');
    const idleClosed = new Promise((resolve) => idle.once('close', resolve));
    const first = await busy(server.port, '127.0.0.1');
    await busy(server.port, '127.0.0.1');
    await accepted(server, 3);
    // At the cap: the idle connection of 127.0.0.2 gives way to another of that address.
    await busy(server.port, '127.0.0.2');
    await idleClosed;
    first.destroy();
    while ((await server.connections()) > 2) await new Promise((resolve) => setTimeout(resolve, 10));
    await busy(server.port, '127.0.0.2');
    // 127.0.0.2 now has two requests under way: its limit, with room left in all.
    expect(await get(server.port, '/NotificationNotes.asmx?wsdl', '127.0.0.2')).toMatch(
      /^HTTP\/1\.1 503 [\s\S]*Too many connections from this address\.\r\n$/,
    );
  });
});
