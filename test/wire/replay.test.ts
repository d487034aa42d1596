// Requests that real clients sent (.NET, Java, Python and PHP clients
// generated from our ?wsdl), recorded byte for byte by `npm run test:interop`
// into test/interop/fixtures, replayed against the service with the answer
// each client got and accepted. So `npm test` alone catches a regression
// against what real clients send: `Expect: 100-continue`, the char as `49`,
// prefixes, quoting and header spellings as each toolkit writes them.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { HttpMessageSplitter, parseMessage, type HttpMessage } from '../support/http-messages';
import { retarget, sendRaw, stableResponse } from '../support/raw-exchange';
import { listenOnLoopback, startTestService, type LoopbackListener, type TestService } from '../support/service';

const FIXTURES_DIR = path.join(__dirname, '..', 'interop', 'fixtures');
const REQUEST_SUFFIX = '.http';
const RESPONSE_SUFFIX = '.response.http';

const names = readdirSync(FIXTURES_DIR)
  .filter((file) => file.endsWith(REQUEST_SUFFIX) && !file.endsWith(RESPONSE_SUFFIX))
  .map((file) => file.slice(0, -REQUEST_SUFFIX.length))
  .sort();

let service: TestService;
let server: LoopbackListener;

beforeAll(async () => {
  service = await startTestService();
  server = await listenOnLoopback(service.app);
});
afterAll(async () => {
  await server.close();
  await service.close();
});

it('has recordings of every client for GetStudentSchool and GetTokenDevice', () => {
  const clients = new Set(names.map((name) => name.split('-')[0]));
  expect([...clients].sort()).toEqual(['dotnet', 'java', 'php', 'python']);
  for (const name of names)
    expect(name).toMatch(/^[a-z]+-(soap11|soap12|httpget|httppost)-(GetStudentSchool|GetTokenDevice)$/);
});

describe.each(names)('%s', (name) => {
  it('gets the answer the client accepted, byte for byte', async () => {
    const request = parseMessage('request', readFileSync(path.join(FIXTURES_DIR, name + REQUEST_SUFFIX)));
    const expected = readFileSync(path.join(FIXTURES_DIR, name + RESPONSE_SUFFIX), 'utf8');
    const response = await sendRaw(server.port, retarget(request, `127.0.0.1:${server.port}`));
    expect(stableResponse(response).toString('utf8')).toBe(expected);
  });
});

// The relay that records fixtures and this replay frame messages with the same reader.
describe('reading recorded messages', () => {
  it('frames a chunked request as one message and keeps its bytes', () => {
    const raw = Buffer.from(
      'POST /X.asmx HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n<a>\r\n4\r\n</a>\r\n0\r\n\r\n',
    );
    const message = parseMessage('request', raw);
    expect(message.body.toString()).toBe('<a></a>');
    expect(message.raw.equals(raw)).toBe(true);
  });

  it('skips an interim 100 Continue and splits answers arriving in pieces', () => {
    const answers: HttpMessage[] = [];
    const splitter = new HttpMessageSplitter('response', (message) => answers.push(message));
    const stream =
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n';
    for (const piece of stream.match(/[\s\S]{1,7}/g) ?? []) splitter.push(Buffer.from(piece));
    expect(answers.map((a) => [a.head.startLine, a.body.toString()])).toEqual([
      ['HTTP/1.1 200 OK', 'ok'],
      ['HTTP/1.1 500 Internal Server Error', ''],
    ]);
  });
});
