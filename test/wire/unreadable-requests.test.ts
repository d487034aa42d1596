// Requests Node cannot parse, or whose URL cannot be decoded, are answered in
// one line of plain text, never with a reset connection: a request line over
// the limit is a 414, anything else unreadable a 400
// (docs/operating.md#connections).
import net from 'node:net';
import { headerValue, statusOf } from '../support/http-messages';
import { ADMIN_TOKEN, startOperatedService, type OperatedService } from '../support/operated-service';
import { sendRaw } from '../support/raw-exchange';
import { listenOnLoopback, type LoopbackListener } from '../support/service';
import { storeVariants } from '../support/stores';

const [sqlite] = storeVariants();

let service: OperatedService;
let server: LoopbackListener;
beforeAll(async () => {
  service = await startOperatedService(sqlite);
  server = await listenOnLoopback(service.app);
});
afterAll(async () => {
  await server.close();
  await service.stop();
});

const request = (target: string | Buffer, headers = 'Host: test\r\n') =>
  Buffer.concat([
    Buffer.from('GET '),
    Buffer.isBuffer(target) ? target : Buffer.from(target, 'latin1'),
    Buffer.from(` HTTP/1.1\r\n${headers}\r\n`),
  ]);

async function answerTo(raw: Buffer) {
  const answer = await sendRaw(server.port, raw);
  return {
    status: statusOf(answer.head),
    contentType: headerValue(answer.head, 'content-type'),
    nosniff: headerValue(answer.head, 'x-content-type-options'),
    body: answer.body.toString('utf8'),
  };
}

/**
 * Sends `raw` in pieces, as a client on a real network does, and keeps
 * sending after the answer arrives: the answer must be read whole, not lost
 * to a reset.
 */
function sendSlowly(raw: Buffer, pieceBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.port, '127.0.0.1');
    let text = '';
    let offset = 0;
    const timer = setInterval(() => {
      if (offset >= raw.length || !socket.writable) return clearInterval(timer);
      socket.write(raw.subarray(offset, offset + pieceBytes));
      offset += pieceBytes;
    }, 5);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', (err) => {
      clearInterval(timer);
      if (text === '') reject(err);
    });
    socket.on('close', () => {
      clearInterval(timer);
      resolve(text);
    });
  });
}

describe('requests that cannot be read', () => {
  it.each([
    ['a 20 KB query string', 20_000],
    ['a 1 MB query string', 1_000_000],
  ])('answers %s with 414 text/plain', async (_name, size) => {
    const answer = await answerTo(request(`/PushNotificationMobile.asmx/GetTokenDevice?id=${'a'.repeat(size)}`));
    expect(answer).toEqual({
      status: 414,
      contentType: 'text/plain; charset=utf-8',
      nosniff: 'nosniff',
      body: 'The request URL is too long.\r\n',
    });
  });

  it('answers an oversized query string sent in pieces with 414 before the client has finished, without a reset', async () => {
    const text = await sendSlowly(
      request(`/PushNotificationMobile.asmx/GetTokenDevice?id=${'%41'.repeat(100_000)}`),
      16 * 1024,
    );
    expect(text).toMatch(/^HTTP\/1\.1 414 URI Too Long\r\n[\s\S]*\r\n\r\nThe request URL is too long\.\r\n$/);
  });

  it('answers headers over the limit with 431 text/plain', async () => {
    const answer = await answerTo(request('/healthz', `Host: test\r\nX-Big: ${'b'.repeat(20_000)}\r\n`));
    expect(answer).toEqual({
      status: 431,
      contentType: 'text/plain; charset=utf-8',
      nosniff: 'nosniff',
      body: 'The request headers are too large.\r\n',
    });
  });

  it.each([
    [
      'bytes that are not UTF-8 in the query',
      Buffer.concat([
        Buffer.from('/PushNotificationMobile.asmx/GetTokenDevice?id='),
        Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
      ]),
    ],
    [
      'bytes that are not UTF-8 in the path',
      Buffer.concat([Buffer.from('/PushNotificationMobile.asmx/'), Buffer.from([0xc3, 0x28])]),
    ],
    ['a control character in the URL', Buffer.from('/PushNotificationMobile.asmx?\x01')],
    ['a space in the URL', Buffer.from('/Push Notification.asmx')],
  ])('answers %s with 400 text/plain', async (_name, target) => {
    const answer = await answerTo(request(target));
    expect(answer).toEqual({
      status: 400,
      contentType: 'text/plain; charset=utf-8',
      nosniff: 'nosniff',
      body: 'The request could not be read.\r\n',
    });
  });

  const ADMIN_UNDECODABLE = JSON.stringify({
    error: {
      code: 'invalid_request',
      message: 'The request path could not be decoded: its percent-escapes are not UTF-8.',
    },
  });
  it.each([
    // Read as U+FFFD: an id no student has.
    [
      'an operation call',
      '/PushNotificationMobile.asmx/GetTokenDevice?id=%FF%FE%C3%28',
      200,
      'text/xml; charset=utf-8',
      expect.stringMatching(/<string [^>]*xsi:nil="true"[^>]* \/>$/),
    ],
    // ASMX's own answer to an unknown operation: a 500 with its message.
    [
      'an operation name',
      '/PushNotificationMobile.asmx/Get%FFToken?id=1',
      500,
      'text/plain; charset=utf-8',
      'Get%FFToken Web Service method name is not valid.\r\n',
    ],
    ['an endpoint name', '/Push%C3%28.asmx?wsdl', 404, 'text/plain; charset=utf-8', 'Not Found.\r\n'],
    [
      'a help page',
      '/PushNotificationMobile.asmx?op=%FF%C3%28',
      200,
      'text/html; charset=utf-8',
      expect.stringContaining('<h2>Method Not Found</h2>'),
    ],
    // The admin API's own error shape.
    [
      'an admin API path',
      '/admin/api/v1/outbox/sms/%FF%C3%28',
      400,
      'application/json; charset=utf-8',
      ADMIN_UNDECODABLE,
    ],
    ['an unknown path', '/%FF%C3%28/%E0%A4%A', 404, 'text/plain; charset=utf-8', 'Not Found.\r\n'],
  ])(
    'answers percent-escapes that are not UTF-8 in %s as any other value, never as a failure of ours',
    async (_name, target, status, contentType, body) => {
      const answer = await answerTo(request(target, `Host: test\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n`));
      expect(answer).toEqual({ status, contentType, nosniff: 'nosniff', body });
    },
  );
});
