// docs/design.md#http-get-and-post, rules 19-23: the HTTP GET and POST bindings' parameter rules
// and their plain-text errors.
import { startTestService, type TestService } from '../support/service';
import { XML_DECL, bodyText, call } from '../support/wire';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.close();
});

const TOKEN = `${XML_DECL}\r\n<string xmlns="http://tempuri.org/">fcm:AAAA-1001</string>`;
const NIL = `${XML_DECL}\r\n<string xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:nil="true" xmlns="http://tempuri.org/" />`;

function expectError(
  res: { status: number; headers: Record<string, string>; body: unknown },
  text: string,
  cache = 'private',
): void {
  expect(res.status).toBe(500);
  expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
  expect(res.headers['cache-control']).toBe(cache);
  expect(bodyText(res)).toBe(`${text}\r\n`);
}

describe('rule 19: parameters', () => {
  it('matches parameter names case-insensitively', async () => {
    const res = await call(service.app).get('/PushNotificationMobile.asmx/GetTokenDevice?ID=dev-1001');
    expect(bodyText(res)).toBe(TOKEN);
  });

  it('matches the endpoint path case-insensitively', async () => {
    const res = await call(service.app).get('/pushnotificationmobile.ASMX/GetTokenDevice?id=dev-1001');
    expect(bodyText(res)).toBe(TOKEN);
  });

  it('joins repeated parameters with a comma', async () => {
    const res = await call(service.app).get('/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001&id=dev-1002');
    expect(bodyText(res)).toBe(NIL);
  });

  it('ignores extra parameters and decodes + as a space', async () => {
    const res = await call(service.app).get('/PushNotificationMobile.asmx/GetTokenDevice?x=1&id=dev-1001&y=a+b');
    expect(bodyText(res)).toBe(TOKEN);
  });

  it('tolerates a malformed escape', async () => {
    const res = await call(service.app).get('/PushNotificationMobile.asmx/GetTokenDevice?id=%ZZ');
    expect(bodyText(res)).toBe(NIL);
  });

  // .NET's and Mono's HttpGet/HttpPost proxies write every non-ASCII character
  // as %uXXXX (found by the interop suite); ASP.NET's UrlDecode reads it.
  it('decodes the %uXXXX escapes .NET proxies send, in the query and in a form body', async () => {
    const arabicId = 'id=%u062C%u0647%u0627%u0632-3001';
    const get = await call(service.app).get(`/PushNotificationMobile.asmx/GetTokenDevice?${arabicId}`);
    const post = await call(service.app)
      .post('/PushNotificationMobile.asmx/GetTokenDevice')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(arabicId);
    const token = `${XML_DECL}\r\n<string xmlns="http://tempuri.org/">fcm:CCCC-3001</string>`;
    expect([bodyText(get), bodyText(post)]).toEqual([token, token]);
  });

  it('reads a %u escape as one character, and leaves a malformed one as it is', async () => {
    const one = await call(service.app).get(
      '/NotificationNotes.asmx/GetStudentSchool?school_base_url=https://school-b.example&show_active=%u0031',
    );
    expect(bodyText(one)).toContain('<id_student>2001</id_student>');
    const malformed = await call(service.app).get(
      '/NotificationNotes.asmx/GetStudentSchool?school_base_url=x&show_active=%u31',
    );
    expectError(
      malformed,
      'Cannot convert %u31 to System.Char.\r\nParameter name: type ---> String must be exactly one character long.',
    );
  });

  // A long run of escapes overflowed the stack when the decoder spread it into one call (125,000 and more).
  it('decodes a form body that is one run of %u escapes up to BODY_LIMIT', async () => {
    const escapes = Math.floor((1024 * 1024 - 3) / 6);
    const res = await call(service.app)
      .post('/PushNotificationMobile.asmx/GetTokenDevice')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(`id=${'%u0041'.repeat(escapes)}`);
    expect(res.status).toBe(200);
    expect(bodyText(res)).toBe(NIL);
  });

  it('decodes runs of %u escapes broken by malformed ones', async () => {
    const res = await call(service.app)
      .post('/PushNotificationMobile.asmx/GetTokenDevice')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('id=%u%u0064%u0065%u0076-%u00311001%uZZ');
    expect(bodyText(res)).toBe(NIL);
    const ok = await call(service.app)
      .post('/PushNotificationMobile.asmx/GetTokenDevice')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('id=%u0064ev%u002D%u0031001');
    expect(bodyText(ok)).toBe(TOKEN);
  });

  it('reads a form body with a charset', async () => {
    const res = await call(service.app)
      .post('/PushNotificationMobile.asmx/GetTokenDevice')
      .set('Content-Type', 'application/x-www-form-urlencoded; charset=UTF-8')
      .send('id=dev-1001');
    expect(bodyText(res)).toBe(TOKEN);
  });

  it('reads POST parameters from the body only, never the query', async () => {
    const res = await call(service.app)
      .post('/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('');
    expectError(res, 'Missing parameter: id.');
  });

  it('answers a missing parameter', async () => {
    const res = await call(service.app).get('/AuthCodeSending.asmx/AuthCode?code=1234');
    expectError(res, 'Missing parameter: phone.');
  });
});

describe('rule 22: errors', () => {
  it.each([
    ['text/plain', 'text/plain'],
    ['text/xml; charset=utf-8', 'text/xml; charset=utf-8'],
    ['multipart/form-data; boundary=x', 'multipart/form-data; boundary=x'],
  ])('refuses a POST body of type %s', async (type, shown) => {
    const res = await call(service.app)
      .post('/PushNotificationMobile.asmx/GetTokenDevice')
      .set('Content-Type', type)
      .send('id=dev-1001');
    expectError(res, `Request format is invalid: ${shown}.`);
  });

  it('refuses a POST without a content type', async () => {
    const res = await call(service.app).post('/PushNotificationMobile.asmx/GetTokenDevice');
    expectError(res, 'Request format is invalid: .');
  });

  it('names an unknown method', async () => {
    const res = await call(service.app).get('/PushNotificationMobile.asmx/Nope?id=1');
    expectError(res, 'Nope Web Service method name is not valid.');
  });

  it('names a method of another endpoint as unknown', async () => {
    const res = await call(service.app).get(
      '/PushNotificationMobile.asmx/GetStudentSchool?school_base_url=x&show_active=1',
    );
    expectError(res, 'GetStudentSchool Web Service method name is not valid.');
  });

  it('explains a method name in the wrong case', async () => {
    const res = await call(service.app).get('/PushNotificationMobile.asmx/gettokendevice?id=dev-1001');
    expectError(
      res,
      'Invalid method name &#39;gettokendevice&#39;,  method names are case sensitive.   The method name &#39;GetTokenDevice&#39; with the same name but different casing was found.\r\nParameter name: methodName',
    );
  });

  it.each([['49'], [''], ['10']])('refuses show_active=%p, which is not one character', async (value) => {
    const res = await call(service.app).get(
      `/NotificationNotes.asmx/GetStudentSchool?school_base_url=https://school-a.example&show_active=${value}`,
    );
    expectError(
      res,
      `Cannot convert ${value} to System.Char.\r\nParameter name: type ---> String must be exactly one character long.`,
    );
  });

  it('HTML-encodes what the caller sent', async () => {
    const res = await call(service.app).get(
      '/NotificationNotes.asmx/GetStudentSchool?school_base_url=x&show_active=%3Cb%3E',
    );
    expectError(
      res,
      'Cannot convert &lt;b&gt; to System.Char.\r\nParameter name: type ---> String must be exactly one character long.',
    );
  });

  // ASMX encodes each message of the exception chain, never the ` ---> ` that joins them.
  it('HTML-encodes a joiner the caller sent, but not the one between messages', async () => {
    const res = await call(service.app).get(
      '/NotificationNotes.asmx/GetStudentSchool?school_base_url=x&show_active=a%20---%3E%20b',
    );
    expectError(
      res,
      'Cannot convert a ---&gt; b to System.Char.\r\nParameter name: type ---> String must be exactly one character long.',
    );
  });

  it('answers an operation’s own refusal with private, max-age=0 like any invoked method', async () => {
    const res = await call(service.app).get('/AuthCodeSending.asmx/AuthCode?code=12&phone=0944123456');
    expectError(res, 'The code must be 4 to 10 digits.', 'private, max-age=0');
  });
});

describe('rule 23: verbs', () => {
  it.each([['put'], ['delete']] as const)(
    'answers %s on an operation with the unrecognized-URL error',
    async (verb) => {
      const res = await call(service.app)[verb]('/PushNotificationMobile.asmx/GetTokenDevice');
      expectError(res, 'Request format is unrecognized for URL unexpectedly ending in &#39;/GetTokenDevice&#39;.');
    },
  );

  it('answers an empty operation with the unrecognized-URL error', async () => {
    const res = await call(service.app).get('/PushNotificationMobile.asmx/');
    expectError(res, 'Request format is unrecognized for URL unexpectedly ending in &#39;/&#39;.');
  });

  it('answers 405 to other verbs on the endpoint', async () => {
    const res = await call(service.app).put('/PushNotificationMobile.asmx');
    expect(res.status).toBe(405);
    expect(res.headers['allow']).toBe('GET, POST');
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('answers 404 in plain text for an unknown endpoint', async () => {
    const res = await call(service.app).get('/Nope.asmx');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
  });
});
