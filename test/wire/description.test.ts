// ?wsdl and ?disco (docs/design.md#service-descriptions, rules 1-9): the shape ASMX generates, and
// every address pointing at the URL the client used.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { ENDPOINTS } from '../../src/contract';
import { startTestService, type TestService } from '../support/service';
import { bodyText, call } from '../support/wire';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.close();
});

const WSDL_NS = 'http://schemas.xmlsoap.org/wsdl/';

interface Element {
  uri: string;
  local: string;
  attributes: Record<string, string>;
  children: Element[];
}

function parse(xml: string): Element {
  const parser = new SaxesParser({ xmlns: true });
  const stack: Element[] = [];
  let root: Element | null = null;
  parser.on('opentag', (tag: SaxesTagNS) => {
    const el: Element = {
      uri: tag.uri,
      local: tag.local,
      attributes: Object.fromEntries(Object.values(tag.attributes).map((a) => [a.name, a.value])),
      children: [],
    };
    if (stack.length > 0) stack[stack.length - 1].children.push(el);
    else root = el;
    stack.push(el);
  });
  parser.on('closetag', () => stack.pop());
  parser.write(xml).close();
  return root as unknown as Element;
}

const fetchWsdl = (endpoint: string, query = 'wsdl', host?: string) => {
  const req = call(service.app).get(`/${endpoint}.asmx?${query}`);
  if (host) req.set('Host', host);
  return req;
};

describe.each(ENDPOINTS.map((e) => [e.name, e] as const))('%s.asmx?wsdl', (name, spec) => {
  it('is served as text/xml in UTF-8 without BOM, CRLF and 2-space indented', async () => {
    const res = await fetchWsdl(name);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/xml; charset=utf-8');
    const body = res.body as Buffer;
    expect(body.subarray(0, 3).toString('hex')).not.toBe('efbbbf');
    const text = body.toString('utf8');
    expect(text.startsWith('<?xml version="1.0" encoding="utf-8"?>\r\n<wsdl:definitions ')).toBe(true);
    expect(text).not.toMatch(/[^\r]\n/);
    for (const line of text.split('\r\n').slice(1)) expect(line).toMatch(/^( {2})*</);
  });

  it('answers ?WSDL and ?Wsdl with the same bytes', async () => {
    const [a, b, c] = await Promise.all(['wsdl', 'WSDL', 'Wsdl'].map((q) => fetchWsdl(name, q, 'h:80')));
    expect(bodyText(b)).toBe(bodyText(a));
    expect(bodyText(c)).toBe(bodyText(a));
  });

  it('has the sections, messages, port types, bindings and ports in ASMX order', async () => {
    const root = parse(bodyText(await fetchWsdl(name)));
    const ops = spec.operations.map((op) => op.wireName);
    const kids = root.children.filter((c) => c.uri === WSDL_NS);
    const names = (local: string) => kids.filter((c) => c.local === local).map((c) => c.attributes.name);
    expect(kids.map((c) => c.local)).toEqual([
      'types',
      ...Array(ops.length * 6).fill('message'),
      'portType',
      'portType',
      'portType',
      'binding',
      'binding',
      'binding',
      'binding',
      'service',
    ]);
    expect(names('message')).toEqual([
      ...ops.flatMap((op) => [`${op}SoapIn`, `${op}SoapOut`]),
      ...ops.flatMap((op) => [`${op}HttpGetIn`, `${op}HttpGetOut`]),
      ...ops.flatMap((op) => [`${op}HttpPostIn`, `${op}HttpPostOut`]),
    ]);
    expect(names('portType')).toEqual([`${name}Soap`, `${name}HttpGet`, `${name}HttpPost`]);
    expect(names('binding')).toEqual([`${name}Soap`, `${name}Soap12`, `${name}HttpGet`, `${name}HttpPost`]);
    expect(kids.filter((c) => c.local === 'binding').map((c) => c.attributes.type)).toEqual([
      `tns:${name}Soap`,
      `tns:${name}Soap`,
      `tns:${name}HttpGet`,
      `tns:${name}HttpPost`,
    ]);
    const service = kids.find((c) => c.local === 'service') as Element;
    expect(service.attributes.name).toBe(name);
    expect(service.children.map((p) => p.attributes.name)).toEqual([
      `${name}Soap`,
      `${name}Soap12`,
      `${name}HttpGet`,
      `${name}HttpPost`,
    ]);
  });

  it('types the HTTP messages’ parts as s:string, the char too, and the SOAP char as s1:char', async () => {
    const root = parse(bodyText(await fetchWsdl(name)));
    for (const op of spec.operations) {
      for (const proto of ['HttpGet', 'HttpPost']) {
        const message = root.children.find(
          (c) => c.local === 'message' && c.attributes.name === `${op.wireName}${proto}In`,
        ) as Element;
        expect(message.children.map((p) => [p.attributes.name, p.attributes.type])).toEqual(
          op.parameters.map((p) => [p.wireName, 's:string']),
        );
      }
    }
    const text = bodyText(await fetchWsdl(name));
    const usesChar = spec.operations.some((op) => op.parameters.some((p) => p.type === 'char'));
    expect(text.includes('<s:element minOccurs="1" maxOccurs="1" name="show_active" type="s1:char" />')).toBe(usesChar);
    expect(text.includes('xmlns:s1="http://microsoft.com/wsdl/types/"')).toBe(usesChar);
  });

  it('rule 3: one qualified schema with Op and OpResponse per operation, then the HTTP roots', async () => {
    const root = parse(bodyText(await fetchWsdl(name)));
    const types = root.children.find((c) => c.local === 'types') as Element;
    const [schema] = types.children;
    expect(schema.attributes).toEqual({ elementFormDefault: 'qualified', targetNamespace: 'http://tempuri.org/' });
    const elements = schema.children.filter((c) => c.local === 'element').map((c) => c.attributes.name);
    const roots = [
      ...new Set(
        spec.operations.map(
          (op) => ({ void: null, string: 'string', ArrayOfStudentInfo: 'ArrayOfStudentInfo' })[op.result],
        ),
      ),
    ].filter((r): r is string => r !== null);
    expect(elements).toEqual([...spec.operations.flatMap((op) => [op.wireName, `${op.wireName}Response`]), ...roots]);
    for (const rootName of roots) {
      const el = schema.children.find((c) => c.local === 'element' && c.attributes.name === rootName) as Element;
      expect(el.attributes.nillable).toBe('true');
    }
    for (const op of spec.operations.filter((o) => o.result === 'void')) {
      const response = schema.children.find((c) => c.attributes.name === `${op.wireName}Response`) as Element;
      expect(response.children.map((c) => [c.local, c.children.length])).toEqual([['complexType', 0]]);
    }
  });

  it('rule 6: SOAP bindings are document/literal over HTTP with ASMX actions', async () => {
    const root = parse(bodyText(await fetchWsdl(name)));
    for (const binding of root.children.filter((c) => c.local === 'binding').slice(0, 2)) {
      const [transport, ...operations] = binding.children;
      expect(transport.local).toBe('binding');
      expect(transport.attributes).toEqual({ transport: 'http://schemas.xmlsoap.org/soap/http' });
      for (const [i, op] of operations.entries()) {
        expect(op.children[0].attributes).toEqual({
          soapAction: `http://tempuri.org/${spec.operations[i].wireName}`,
          style: 'document',
        });
        expect(op.children.slice(1).map((io) => [io.local, io.children[0].attributes.use])).toEqual([
          ['input', 'literal'],
          ['output', 'literal'],
        ]);
      }
    }
  });

  it('rule 7: HTTP bindings by verb, location, urlEncoded/form input and mimeXml or empty output', async () => {
    const root = parse(bodyText(await fetchWsdl(name)));
    const [get, post] = root.children.filter((c) => c.local === 'binding').slice(2);
    for (const [binding, verb, input] of [
      [get, 'GET', 'urlEncoded'],
      [post, 'POST', 'content'],
    ] as const) {
      expect(binding.children[0].attributes).toEqual({ verb });
      for (const [i, op] of binding.children.slice(1).entries()) {
        const spec_ = spec.operations[i];
        expect(op.children[0].attributes).toEqual({ location: `/${spec_.wireName}` });
        expect(op.children[1].children.map((c) => [c.local, c.attributes.type])).toEqual([
          [input, input === 'content' ? 'application/x-www-form-urlencoded' : undefined],
        ]);
        const output = op.children[2];
        if (spec_.result === 'void') expect(output.children).toEqual([]);
        else expect(output.children.map((c) => [c.local, c.attributes.part])).toEqual([['mimeXml', 'Body']]);
      }
    }
  });

  it('is the authored file with only the addresses and line ends changed', async () => {
    const authored = readFileSync(path.join(__dirname, '..', '..', 'wsdl', `${name}.wsdl`), 'utf8');
    const served = bodyText(await fetchWsdl(name, 'wsdl', 'legacy.example:8080'));
    const expected = authored
      .replace(/\r?\n/g, '\r\n')
      .replaceAll(`location="http://localhost/${name}.asmx"`, `location="http://legacy.example:8080/${name}.asmx"`);
    expect(served).toBe(expected);
  });
});

describe('rule 5: ArrayOfStudentInfo and StudentInfo', () => {
  it('are the types XmlSerializer reflects', async () => {
    const text = bodyText(await fetchWsdl('NotificationNotes'));
    expect(text).toContain(
      [
        '      <s:complexType name="ArrayOfStudentInfo">',
        '        <s:sequence>',
        '          <s:element minOccurs="0" maxOccurs="unbounded" name="StudentInfo" nillable="true" type="tns:StudentInfo" />',
        '        </s:sequence>',
        '      </s:complexType>',
        '      <s:complexType name="StudentInfo">',
        '        <s:sequence>',
        '          <s:element minOccurs="0" maxOccurs="1" name="id_student" type="s:string" />',
        '          <s:element minOccurs="0" maxOccurs="1" name="fullName" type="s:string" />',
        '          <s:element minOccurs="0" maxOccurs="1" name="id_device" type="s:string" />',
        '          <s:element minOccurs="0" maxOccurs="1" name="ShowActive" type="s:string" />',
        '        </s:sequence>',
        '      </s:complexType>',
      ].join('\r\n'),
    );
    expect(text).toContain(
      [
        '    <s:schema elementFormDefault="qualified" targetNamespace="http://microsoft.com/wsdl/types/">',
        '      <s:simpleType name="char">',
        '        <s:restriction base="s:unsignedShort" />',
        '      </s:simpleType>',
        '    </s:schema>',
      ].join('\r\n'),
    );
  });
});

describe('addresses', () => {
  const locations = (xml: string) =>
    [...xml.matchAll(/location="([^"]*)"/g)].map((m) => m[1]).filter((l) => l.startsWith('http'));

  it('point at the host, port and path the client used', async () => {
    const res = await call(service.app).get('/notificationnotes.asmx?wsdl').set('Host', 'school.example:8443');
    expect(locations(bodyText(res))).toEqual(Array(4).fill('http://school.example:8443/notificationnotes.asmx'));
  });

  it('ignore X-Forwarded-* from an untrusted peer', async () => {
    const res = await call(service.app)
      .get('/NotificationNotes.asmx?wsdl')
      .set('Host', 'internal:8080')
      .set('X-Forwarded-Proto', 'https')
      .set('X-Forwarded-Host', 'evil.example');
    expect(locations(bodyText(res))).toEqual(Array(4).fill('http://internal:8080/NotificationNotes.asmx'));
  });

  it('honour X-Forwarded-* behind a trusted proxy', async () => {
    const trusted = await startTestService({ trustProxy: 'loopback' });
    try {
      const res = await call(trusted.app)
        .get('/NotificationNotes.asmx?wsdl')
        .set('Host', 'internal:8080')
        .set('X-Forwarded-Proto', 'https')
        .set('X-Forwarded-Host', 'notify.school.example');
      expect(locations(bodyText(res))).toEqual(Array(4).fill('https://notify.school.example/NotificationNotes.asmx'));
    } finally {
      await trusted.close();
    }
  });

  it('cannot inject markup through the Host header', async () => {
    const res = await call(service.app).get('/NotificationNotes.asmx?wsdl').set('Host', 'a"b<c');
    expect(bodyText(res)).not.toContain('a"b<c');
  });
});

describe('another SOAP_NAMESPACE', () => {
  it('is the namespace of the WSDL, the actions and the answers', async () => {
    const other = await startTestService({ namespace: 'urn:school:notify' });
    try {
      const wsdl = bodyText(await call(other.app).get('/PushNotificationMobile.asmx?wsdl'));
      expect(wsdl).toContain('targetNamespace="urn:school:notify"');
      expect(wsdl).toContain('soapAction="urn:school:notify/GetTokenDevice"');
      const res = await call(other.app)
        .post('/PushNotificationMobile.asmx')
        .set('Content-Type', 'text/xml; charset=utf-8')
        .set('SOAPAction', '"urn:school:notify/GetTokenDevice"')
        .send(
          '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><GetTokenDevice xmlns="urn:school:notify"><id>dev-1001</id></GetTokenDevice></soap:Body></soap:Envelope>',
        );
      expect(bodyText(res)).toContain(
        '<GetTokenDeviceResponse xmlns="urn:school:notify"><GetTokenDeviceResult>fcm:AAAA-1001</GetTokenDeviceResult>',
      );
    } finally {
      await other.close();
    }
  });
});

describe('?disco', () => {
  it('is the discovery document ASMX writes', async () => {
    const res = await call(service.app).get('/NotificationNotes.asmx?disco').set('Host', 'h:81');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/xml; charset=utf-8');
    expect(bodyText(res)).toBe(
      [
        '<?xml version="1.0" encoding="utf-8"?>',
        '<discovery xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://schemas.xmlsoap.org/disco/">',
        '  <contractRef ref="http://h:81/NotificationNotes.asmx?wsdl" docRef="http://h:81/NotificationNotes.asmx" xmlns="http://schemas.xmlsoap.org/disco/scl/" />',
        '  <soap address="http://h:81/NotificationNotes.asmx" xmlns:q1="http://tempuri.org/" binding="q1:NotificationNotesSoap" xmlns="http://schemas.xmlsoap.org/disco/soap/" />',
        '  <soap address="http://h:81/NotificationNotes.asmx" xmlns:q2="http://tempuri.org/" binding="q2:NotificationNotesSoap12" xmlns="http://schemas.xmlsoap.org/disco/soap/" />',
        '</discovery>',
      ].join('\r\n'),
    );
  });

  it('answers an unknown description id as ASMX does', async () => {
    const res = await call(service.app).get('/NotificationNotes.asmx?wsdl=wsdl0');
    expect(res.status).toBe(500);
    expect(bodyText(res)).toBe('XML Web service description was not found.\r\n');
  });

  it.each([['schema0'], [''], ['anything']])(
    'answers ?schema=%p with Schema not found., as ASMX does (it imports no schema)',
    async (value) => {
      const res = await call(service.app).get(`/NotificationNotes.asmx?schema=${value}`);
      expect(res.status).toBe(500);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(bodyText(res)).toBe('Schema not found.\r\n');
      // The cache policy of a document, not of a routing error: the one header ASMX answered differently (docs/design.md).
      expect(res.headers['cache-control']).toBe('private, max-age=0');
    },
  );
});
