// A query string longer than MAX_QUERY_STRING_LENGTH (2,048 by default, as
// ASP.NET's maxQueryStringLength) is a 400 with ASP.NET's message as one line
// of plain text, before any handler reads it (docs/design.md#query-string-length).
import { loadConfig } from '../../src/config';
import { QUERY_STRING_TOO_LONG } from '../../src/wire';
import { queryStringLength } from '../../src/wire/query-length';
import { startTestService, type TestService } from '../support/service';
import { call } from '../support/wire';

describe('the query string length limit', () => {
  let service: TestService;
  const max = loadConfig({}).maxQueryStringLength;
  beforeAll(async () => {
    service = await startTestService({ maxQueryStringLength: max });
  });
  afterAll(() => service.close());

  /** A GetTokenDevice call whose query string is exactly `length` characters. */
  const tokenCall = (length: number) => {
    const query = `id=dev-1001&pad=${'x'.repeat(length - 'id=dev-1001&pad='.length)}`;
    expect(queryStringLength(`/x?${query}`)).toBe(length);
    return call(service.app).get(`/PushNotificationMobile.asmx/GetTokenDevice?${query}`);
  };

  it("is ASP.NET's default, 2,048 characters", () => {
    expect(max).toBe(2048);
    expect(loadConfig({ MAX_QUERY_STRING_LENGTH: '0' }).maxQueryStringLength).toBe(0);
  });

  it('answers a call whose query string is at the limit', async () => {
    const res = await tokenCall(max);
    expect(res.status).toBe(200);
    expect((res.body as Buffer).toString('utf8')).toContain('fcm:AAAA-1001');
  });

  it('refuses one character more with 400 and the reason in plain text, wherever it is sent', async () => {
    const res = await tokenCall(max + 1);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect((res.body as Buffer).toString('utf8')).toBe(`${QUERY_STRING_TOO_LONG}\r\n`);
    for (const path of ['/PushNotificationMobile.asmx', '/PushNotificationMobile.asmx/GetTokenDevice', '/'])
      expect((await call(service.app).get(`${path}?wsdl&${'y'.repeat(max)}`)).status).toBe(400);
  });

  it('admits any length when the limit is 0', async () => {
    const open = await startTestService({ maxQueryStringLength: 0 });
    try {
      const res = await call(open.app).get(
        `/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001&pad=${'x'.repeat(4000)}`,
      );
      expect(res.status).toBe(200);
    } finally {
      await open.close();
    }
  });
});
