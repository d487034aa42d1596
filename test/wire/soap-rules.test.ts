// docs/design.md#wire-rules, rules 10-18: how SOAP requests are versioned, routed, read
// and answered, including every error a client can provoke.
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { listenOnLoopback, startTestService, type TestService } from '../support/service';
import { NS, SOAP11_ENV, SOAP12_ENV, XML_DECL, answer, bodyText, call, envelope, soap11 } from '../support/wire';

let service: TestService;
beforeEach(async () => {
  service = await startTestService();
});
afterEach(async () => {
  await service.close();
});

const TOKEN_1001 =
  '<GetTokenDeviceResponse xmlns="http://tempuri.org/"><GetTokenDeviceResult>fcm:AAAA-1001</GetTokenDeviceResult></GetTokenDeviceResponse>';
const NULL_TOKEN = '<GetTokenDeviceResponse xmlns="http://tempuri.org/" />';
const XSI_XSD = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"';

function post(body: string, headers: Record<string, string>, path = '/PushNotificationMobile.asmx') {
  const req = call(service.app).post(path);
  for (const [k, v] of Object.entries(headers)) req.set(k, v);
  return req.send(body);
}

const fault11 = (code: string, text: string, detail = '<detail />') =>
  answer(
    '1.1',
    `<soap:Fault><faultcode>soap:${code}</faultcode><faultstring>${text}</faultstring>${detail}</soap:Fault>`,
  );
const fault12 = (code: string, text: string, detail = '<soap:Detail />') =>
  answer(
    '1.2',
    `<soap:Fault><soap:Code><soap:Value>soap:${code}</soap:Value></soap:Code><soap:Reason><soap:Text xml:lang="en">${text}</soap:Text></soap:Reason>${detail}</soap:Fault>`,
  );

const tokenRequest11 = (params = '<id>dev-1001</id>') =>
  `${XML_DECL}<soap:Envelope xmlns:soap="${SOAP11_ENV}"><soap:Body><GetTokenDevice xmlns="${NS}">${params}</GetTokenDevice></soap:Body></soap:Envelope>`;
const tokenRequest12 = (params = '<id>dev-1001</id>') =>
  `${XML_DECL}<soap:Envelope xmlns:soap="${SOAP12_ENV}"><soap:Body><GetTokenDevice xmlns="${NS}">${params}</GetTokenDevice></soap:Body></soap:Envelope>`;

describe('rule 10: the version', () => {
  it('answers a SOAP 1.2 envelope sent as text/xml in SOAP 1.2', async () => {
    const res = await post(tokenRequest12(), { 'Content-Type': 'text/xml; charset=utf-8' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/soap+xml; charset=utf-8');
    expect(bodyText(res)).toBe(answer('1.2', TOKEN_1001));
  });

  it('refuses a SOAP 1.1 envelope sent as application/soap+xml with 415', async () => {
    const res = await post(tokenRequest11(), { 'Content-Type': 'application/soap+xml; charset=utf-8' });
    expect(res.status).toBe(415);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('answers an envelope of no SOAP version with a VersionMismatch fault', async () => {
    const res = await post(`${XML_DECL}<Envelope xmlns="urn:other"><Body/></Envelope>`, {
      'Content-Type': 'text/xml',
      SOAPAction: `"${NS}GetTokenDevice"`,
    });
    expect(res.status).toBe(500);
    expect(bodyText(res)).toContain(
      '<faultcode>soap:VersionMismatch</faultcode><faultstring>Possible SOAP version mismatch: Envelope namespace urn:other was unexpected. Expecting http://schemas.xmlsoap.org/soap/envelope/.</faultstring>',
    );
    expect(bodyText(res)).toContain('<soap12:Upgrade');
  });
});

describe('rule 11: SOAP 1.1 is routed by SOAPAction', () => {
  it.each([
    ['quoted', `"${NS}GetTokenDevice"`],
    ['unquoted', `${NS}GetTokenDevice`],
    ['URL-encoded', '"http%3A%2F%2Ftempuri.org%2FGetTokenDevice"'],
  ])('accepts the action %s', async (_how, action) => {
    const res = await post(tokenRequest11(), { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: action });
    expect(res.status).toBe(200);
    expect(bodyText(res)).toBe(answer('1.1', TOKEN_1001));
  });

  it.each([
    ['an unknown action', `"${NS}Nope"`, `${NS}Nope`],
    ['the action in the wrong case', `"${NS}gettokendevice"`, `${NS}gettokendevice`],
    ['the bare operation name', '"GetTokenDevice"', 'GetTokenDevice'],
    ['an empty action', '""', ''],
    ['single quotes', `'${NS}GetTokenDevice'`, `'${NS}GetTokenDevice'`],
  ])('refuses %s with a Client fault', async (_how, header, shown) => {
    const res = await post(tokenRequest11(), { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: header });
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toBe('text/xml; charset=utf-8');
    expect(res.headers['cache-control']).toBe('private');
    expect(bodyText(res)).toBe(
      fault11('Client', `Server did not recognize the value of HTTP Header SOAPAction: ${shown}.`),
    );
  });

  // The action routes; the body element is not checked, but XmlSerializer
  // reads parameters only from the operation's own element (name and
  // namespace exactly): under any other element they are all null.
  it('does not check the body element when the action is known, and reads no parameters from another element', async () => {
    const body = `${XML_DECL}<soap:Envelope xmlns:soap="${SOAP11_ENV}"><soap:Body><GetStudentSchool xmlns="${NS}"><id>dev-1001</id></GetStudentSchool></soap:Body></soap:Envelope>`;
    const res = await post(body, { 'Content-Type': 'text/xml', SOAPAction: `"${NS}GetTokenDevice"` });
    expect(res.status).toBe(200);
    expect(bodyText(res)).toBe(answer('1.1', NULL_TOKEN));
  });

  it.each([
    [
      'SOAP 1.1 by SOAPAction',
      tokenRequest11().replace(/GetTokenDevice/g, 'gettokendevice'),
      { 'Content-Type': 'text/xml', SOAPAction: `"${NS}GetTokenDevice"` },
      '1.1',
    ],
    [
      'SOAP 1.2 by action',
      tokenRequest12().replace(/GetTokenDevice/g, 'GETTOKENDEVICE'),
      { 'Content-Type': `application/soap+xml; action="${NS}GetTokenDevice"` },
      '1.2',
    ],
  ] as const)(
    'reads no parameters from an element that matches the operation only when case is ignored (%s)',
    async (_how, body, headers, version) => {
      const res = await post(body, headers);
      expect(res.status).toBe(200);
      expect(bodyText(res)).toBe(answer(version, NULL_TOKEN));
    },
  );

  it('routes a request without SOAPAction by its body element and answers SOAP 1.1', async () => {
    const res = await post(tokenRequest11(), { 'Content-Type': 'text/xml; charset=utf-8' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/xml; charset=utf-8');
    expect(bodyText(res)).toBe(answer('1.1', TOKEN_1001));
  });

  it('faults a request without SOAPAction whose body element is unknown', async () => {
    const res = await post(tokenRequest11().replace(/GetTokenDevice/g, 'Nope'), {
      'Content-Type': 'text/xml; charset=utf-8',
    });
    expect(res.status).toBe(500);
    expect(bodyText(res)).toBe(
      fault11(
        'Client',
        'Unable to handle request without a valid action parameter. Please supply a valid soap action.',
      ),
    );
  });
});

describe('rule 12: SOAP 1.2 is routed by the action parameter, else the body element', () => {
  it('routes by the body element without an action parameter', async () => {
    const res = await post(tokenRequest12(), { 'Content-Type': 'application/soap+xml; charset=utf-8' });
    expect(bodyText(res)).toBe(answer('1.2', TOKEN_1001));
  });

  it('falls back to the body element when the action is unknown', async () => {
    const res = await post(tokenRequest12(), {
      'Content-Type': `application/soap+xml; charset=utf-8; action="${NS}Nope"`,
    });
    expect(res.status).toBe(200);
    expect(bodyText(res)).toBe(answer('1.2', TOKEN_1001));
  });

  it('ignores a SOAPAction header', async () => {
    const res = await post(tokenRequest12(), { 'Content-Type': 'application/soap+xml', SOAPAction: `"${NS}Nope"` });
    expect(res.status).toBe(200);
  });

  it('faults when neither the action nor the body element is known', async () => {
    const res = await post(tokenRequest12().replace(/GetTokenDevice/g, 'Nope'), {
      'Content-Type': 'application/soap+xml; charset=utf-8',
    });
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toBe('application/soap+xml; charset=utf-8');
    expect(bodyText(res)).toBe(
      fault12(
        'Sender',
        'Unable to handle request without a valid action parameter. Please supply a valid soap action.',
      ),
    );
  });

  it('names an unknown action when the body element is unknown too', async () => {
    const res = await post(tokenRequest12().replace(/GetTokenDevice/g, 'Nope'), {
      'Content-Type': `application/soap+xml; action="${NS}Nope"`,
    });
    expect(bodyText(res)).toBe(
      fault12('Sender', `Unable to handle request. The action '${NS}Nope' was not recognized.`),
    );
  });

  it('does not route a body element of another namespace', async () => {
    const res = await post(tokenRequest12().replace(`xmlns="${NS}"`, 'xmlns="urn:other"'), {
      'Content-Type': 'application/soap+xml',
    });
    expect(res.status).toBe(500);
  });
});

describe('rule 13: parameters', () => {
  const token = async (params: string) =>
    bodyText(await post(tokenRequest11(params), { 'Content-Type': 'text/xml', SOAPAction: `"${NS}GetTokenDevice"` }));

  it('ignores unknown elements and takes the first of duplicates', async () => {
    expect(await token('<other>x</other><id>dev-1001</id><id>dev-1002</id>')).toBe(answer('1.1', TOKEN_1001));
  });

  it('reads a missing string as null', async () => {
    expect(await token('')).toBe(answer('1.1', NULL_TOKEN));
  });

  it('reads xsi:nil as null', async () => {
    expect(await token(`<id xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:nil="true">dev-1001</id>`)).toBe(
      answer('1.1', NULL_TOKEN),
    );
  });

  it('keeps whitespace inside strings', async () => {
    expect(await token('<id> dev-1001 </id>')).toBe(answer('1.1', NULL_TOKEN));
  });

  it('reads CDATA and character references', async () => {
    expect(await token('<id><![CDATA[dev-]]>&#x31;001</id>')).toBe(answer('1.1', TOKEN_1001));
  });

  it('ignores parameters outside the service namespace', async () => {
    expect(await token('<id xmlns="">dev-1001</id>')).toBe(answer('1.1', NULL_TOKEN));
  });

  const students = (showActive: string) =>
    post(
      `${XML_DECL}<soap:Envelope xmlns:soap="${SOAP11_ENV}"><soap:Body><GetStudentSchool xmlns="${NS}"><school_base_url>https://school-b.example</school_base_url>${showActive}</GetStudentSchool></soap:Body></soap:Envelope>`,
      { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${NS}GetStudentSchool"` },
      '/NotificationNotes.asmx',
    );

  it('reads a char as its UTF-16 code, surrounding spaces allowed', async () => {
    const res = await students('<show_active> 49 </show_active>');
    expect(bodyText(res)).toContain('<id_student>2001</id_student>');
  });

  it('reads a missing char as U+0000, which matches no student', async () => {
    const res = await students('');
    expect(bodyText(res)).toBe(
      answer(
        '1.1',
        '<GetStudentSchoolResponse xmlns="http://tempuri.org/"><GetStudentSchoolResult /></GetStudentSchoolResponse>',
      ),
    );
  });

  it('reads the literal 1 as U+0001, not as the character 1', async () => {
    const res = await students('<show_active>1</show_active>');
    expect(bodyText(res)).toContain('<GetStudentSchoolResult />');
  });

  it.each([
    ['a', 'Input string was not in a correct format.'],
    ['', 'Input string was not in a correct format.'],
    ['-1', 'Input string was not in a correct format.'],
    ['70000', 'Value was either too large or too small for a UInt16.'],
  ])('faults the char %p as unreadable', async (value, reason) => {
    const res = await students(`<show_active>${value}</show_active>`);
    expect(res.status).toBe(500);
    expect(bodyText(res)).toMatch(
      new RegExp(
        `<faultcode>soap:Client</faultcode><faultstring>Server was unable to read request\\. ---&gt; There is an error in XML document \\(1, \\d+\\)\\. ---&gt; ${reason.replace(/\./g, '\\.')}</faultstring><detail /></soap:Fault>`,
      ),
    );
  });
});

describe('rule 14: requests that are not SOAP', () => {
  it('refuses a DOCTYPE with 400 and says why', async () => {
    const body = `${XML_DECL}<!DOCTYPE x [<!ENTITY a "aaaa">]><soap:Envelope xmlns:soap="${SOAP11_ENV}"><soap:Body><GetTokenDevice xmlns="${NS}"><id>&a;</id></GetTokenDevice></soap:Body></soap:Envelope>`;
    const res = await post(body, { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${NS}GetTokenDevice"` });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('text/xml; charset=utf-8');
    expect(bodyText(res)).toBe(
      fault11('Client', 'Server was unable to read request. ---&gt; DTD is prohibited in this XML document.'),
    );
  });

  it('refuses malformed XML with 400', async () => {
    const res = await post(tokenRequest11().replace('</GetTokenDevice>', ''), {
      'Content-Type': 'text/xml',
      SOAPAction: `"${NS}GetTokenDevice"`,
    });
    expect(res.status).toBe(400);
    expect(bodyText(res)).toMatch(
      /<faultcode>soap:Client<\/faultcode><faultstring>Server was unable to read request\. ---&gt; There is an error in XML document \(1, \d+\)\. ---&gt; .+<\/faultstring>/,
    );
  });

  it('refuses an empty body with 400, in the version of the content type', async () => {
    const res = await post('', { 'Content-Type': 'application/soap+xml; charset=utf-8' });
    expect(res.status).toBe(400);
    expect(bodyText(res)).toBe(
      fault12('Sender', 'Server was unable to read request. ---&gt; Root element is missing.'),
    );
  });

  it('refuses an undeclared entity', async () => {
    const res = await post(tokenRequest11('<id>&nbsp;</id>'), {
      'Content-Type': 'text/xml',
      SOAPAction: `"${NS}GetTokenDevice"`,
    });
    expect(res.status).toBe(400);
  });

  it.each([['text/plain'], ['application/json'], ['application/xml']])(
    'refuses Content-Type %s with 415 and one line of text',
    async (type) => {
      const res = await post(tokenRequest11(), { 'Content-Type': type, SOAPAction: `"${NS}GetTokenDevice"` });
      expect(res.status).toBe(415);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(bodyText(res)).toMatch(/^Unsupported Media Type: [^\r\n]+\r\n$/);
    },
  );

  it('refuses a body over the limit with 413', async () => {
    const big = tokenRequest11(`<id>${'x'.repeat(1048576)}</id>`);
    const res = await post(big, { 'Content-Type': 'text/xml', SOAPAction: `"${NS}GetTokenDevice"` });
    expect(res.status).toBe(413);
    expect(bodyText(res)).toBe('Request body exceeds the limit of 1048576 bytes.\r\n');
  });

  it('refuses a chunked body (no Content-Length) that grows over the limit', async () => {
    const small = await startTestService({ bodyLimit: 2048 });
    const server = await listenOnLoopback(small.app);
    try {
      const { port } = server;
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request(
          {
            port,
            host: '127.0.0.1',
            method: 'POST',
            path: '/PushNotificationMobile.asmx',
            headers: { 'Content-Type': 'text/xml', SOAPAction: `"${NS}GetTokenDevice"` },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.write(tokenRequest11(`<id>${'x'.repeat(1500)}</id>`));
        req.end(`<!--${'y'.repeat(1500)}-->`);
      });
      expect(status).toBe(413);
    } finally {
      await server.close();
      await small.close();
    }
  });

  it('reads a gzip-compressed body, its limit applying to what it inflates to', async () => {
    const res = await post(gzipSync(tokenRequest11()) as unknown as string, {
      'Content-Type': 'text/xml; charset=utf-8',
      'Content-Encoding': 'gzip',
      SOAPAction: `"${NS}GetTokenDevice"`,
    });
    expect(bodyText(res)).toBe(answer('1.1', TOKEN_1001));
    const bomb = gzipSync(tokenRequest11(`<id>${'x'.repeat(2 * 1048576)}</id>`));
    const refused = await post(bomb as unknown as string, {
      'Content-Type': 'text/xml',
      'Content-Encoding': 'gzip',
      SOAPAction: `"${NS}GetTokenDevice"`,
    });
    expect(refused.status).toBe(413);
  });

  it('reads a body in the charset the Content-Type names', async () => {
    const utf16 = Buffer.from('\uFEFF' + tokenRequest11(), 'utf16le');
    const res = await post(utf16 as unknown as string, {
      'Content-Type': 'text/xml; charset=utf-16',
      SOAPAction: `"${NS}GetTokenDevice"`,
    });
    expect(res.status).toBe(200);
    expect(bodyText(res)).toBe(answer('1.1', TOKEN_1001));
  });

  it('refuses a charset it cannot read with 415', async () => {
    const res = await post(tokenRequest11(), {
      'Content-Type': 'text/xml; charset=x-unknown',
      SOAPAction: `"${NS}GetTokenDevice"`,
    });
    expect(res.status).toBe(415);
  });

  it('faults an envelope without a Body', async () => {
    const res = await post(`${XML_DECL}<soap:Envelope xmlns:soap="${SOAP11_ENV}"><soap:Header/></soap:Envelope>`, {
      'Content-Type': 'text/xml',
      SOAPAction: `"${NS}GetTokenDevice"`,
    });
    expect(res.status).toBe(500);
    expect(bodyText(res)).toBe(fault11('Client', 'Request format is invalid: Missing required soap:Body element.'));
  });
});

describe('rule 17: failures inside an operation', () => {
  it('answers a Server fault when the store is unavailable, and keeps serving', async () => {
    await service.store.lifecycle.close();
    const res = await soap11(service.app, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' });
    expect(res.status).toBe(500);
    expect(bodyText(res)).toBe(
      fault11('Server', 'Server was unable to process request. ---&gt; The data store is unavailable.'),
    );
    const res12 = await call(service.app)
      .post('/PushNotificationMobile.asmx')
      .set('Content-Type', 'application/soap+xml; charset=utf-8')
      .send(envelope('1.2', 'GetTokenDevice', { id: 'dev-1001' }));
    expect(bodyText(res12)).toBe(
      fault12('Receiver', 'Server was unable to process request. ---&gt; The data store is unavailable.'),
    );
    const wsdl = await call(service.app).get('/PushNotificationMobile.asmx?wsdl');
    expect(wsdl.status).toBe(200);
  });
});

describe('rule 18: headers that must be understood', () => {
  it('answers a MustUnderstand fault without detail', async () => {
    const body = `${XML_DECL}<soap:Envelope xmlns:soap="${SOAP11_ENV}"><soap:Header><Trace xmlns="urn:t" soap:mustUnderstand="1">x</Trace></soap:Header><soap:Body><GetTokenDevice xmlns="${NS}"><id>dev-1001</id></GetTokenDevice></soap:Body></soap:Envelope>`;
    const res = await post(body, { 'Content-Type': 'text/xml', SOAPAction: `"${NS}GetTokenDevice"` });
    expect(res.status).toBe(500);
    // Raised once the method was chosen, so it carries an invoked method's cache policy.
    expect(res.headers['cache-control']).toBe('private, max-age=0');
    expect(bodyText(res)).toBe(fault11('MustUnderstand', 'SOAP header Trace was not understood.', ''));
  });

  it('answers it in SOAP 1.2 too', async () => {
    const body = `${XML_DECL}<soap:Envelope xmlns:soap="${SOAP12_ENV}"><soap:Header><Trace xmlns="urn:t" soap:mustUnderstand="true">x</Trace></soap:Header><soap:Body><GetTokenDevice xmlns="${NS}"><id>dev-1001</id></GetTokenDevice></soap:Body></soap:Envelope>`;
    const res = await post(body, { 'Content-Type': 'application/soap+xml' });
    expect(bodyText(res)).toBe(fault12('MustUnderstand', 'SOAP header Trace was not understood.', ''));
  });

  it('ignores headers that need not be understood', async () => {
    const body = `${XML_DECL}<soap:Envelope xmlns:soap="${SOAP11_ENV}" ${XSI_XSD}><soap:Header><Trace xmlns="urn:t">x</Trace></soap:Header><soap:Body><GetTokenDevice xmlns="${NS}"><id>dev-1001</id></GetTokenDevice></soap:Body></soap:Envelope>`;
    const res = await post(body, { 'Content-Type': 'text/xml', SOAPAction: `"${NS}GetTokenDevice"` });
    expect(bodyText(res)).toBe(answer('1.1', TOKEN_1001));
  });
});
