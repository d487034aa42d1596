// Generated requests for the fuzz suite: the real contract's endpoints,
// operations and parameters (src/contract) over the four bindings and the
// documents, mixed with hostile shapes. Each case is a plain object, so that
// fast-check prints a shrunk counterexample that can be read and replayed
// (test/chaos/fuzz.test.ts says how), and `requestBytes` turns it into the
// exact bytes sent.
import fc from 'fast-check';
import { ENDPOINTS, type OperationSpec } from '../../../src/contract';
import { rawRequest } from './raw-client';

const NS = 'http://tempuri.org/';
const SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const SOAP12 = 'http://www.w3.org/2003/05/soap-envelope';

/** The service's default BODY_LIMIT (docs/configuration.md#body_limit). */
export const BODY_LIMIT = 1_048_576;
/** A SOAP document nested deeper than this must be refused (400, soap:Client) without reading it through. */
export const REFUSED_DEPTH = 1_000;
/** A request target longer than this is refused with 414 (Node's own header limit is 16 KB). */
export const LONGEST_TARGET = 16_384;

export type Binding = 'soap11' | 'soap12' | 'get' | 'post';

/** How the body or the request around a valid call is broken. */
export type Hostility =
  | { kind: 'none' }
  | { kind: 'deep'; depth: number; where: 'header' | 'body' | 'parameter' }
  | { kind: 'attributes'; count: number }
  | { kind: 'doctype'; entities: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'binary'; bytes: number[] }
  | { kind: 'huge'; bytes: number }
  | { kind: 'bad-utf8'; at: number }
  | { kind: 'long-query'; length: number }
  | { kind: 'raw-url-bytes'; bytes: number[] }
  | { kind: 'bad-escapes'; escapes: string[] };

export interface CallCase {
  readonly type: 'call';
  readonly binding: Binding;
  readonly endpoint: string;
  readonly operation: string;
  /** Parameters in order; a name may repeat or be unknown to the contract. */
  readonly params: ReadonlyArray<readonly [string, string]>;
  /** null: the binding's right Content-Type. */
  readonly contentType: string | null;
  /** SOAP 1.1's SOAPAction header; undefined: the right one; null: none. */
  readonly soapAction?: string | null;
  readonly hostility: Hostility;
}

/** `?wsdl`, `?disco`, help pages, other methods, unknown paths. */
export interface DocumentCase {
  readonly type: 'document';
  readonly method: string;
  readonly target: string;
}

/**
 * Bytes that are not well-formed HTTP, or a request the client abandons
 * mid-body (`abandon`). Either way the client half-closes the connection
 * after writing: the server answers what it can, or closes.
 */
export interface FramingCase {
  readonly type: 'framing';
  readonly head: string;
  readonly body: string;
  /** The body is cut short: no answer is a fair outcome. */
  readonly abandon: boolean;
}

export type FuzzCase = CallCase | DocumentCase | FramingCase;

const OPERATIONS = ENDPOINTS.flatMap((endpoint) =>
  endpoint.operations.map((operation) => ({ endpoint: endpoint.name, operation })),
);

/** Values the fixtures know (test/support/fixtures.ts), so that some calls succeed and reach the store. */
const KNOWN_VALUES: Record<string, string[]> = {
  code: ['123456', '0000', '12', 'abcdef', '12345678901'],
  phone: ['0944123456', '+963944123456', '963944123456', '12', '+1 202 555 0100'],
  SubjectID: ['MATH', '', 'ART'],
  Class_id: ['7A', '9C', ''],
  STDid: ['1001', '1002', '2001', '9999', ''],
  note_type: ['audit', 'behaviour', 'x'],
  school_base_url: ['https://school-a.example', 'HTTPS://SCHOOL-A.EXAMPLE/', 'https://school-b.example', 'nope'],
  show_active: ['1', '0', '49', '48', '', '11'],
  id: ['1001', 'dev-1001', 'dev-1003', 'جهاز-3001', '2001', 'missing'],
  baseUrlSchool: ['https://school-a.example', 'https://school-b.example'],
  TypeNotfication: ['absence', 'note', 'x'.repeat(65), 'تنبيه'],
};

const text = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '<',
      '&',
      ']]>',
      '<![CDATA[x]]>',
      '&amp;',
      '&#0;',
      '&#xD800;',
      '\u0000',
      '\uFFFE',
      '%00',
      '%uD800',
      '+',
      ' ',
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 8000 }).map((n) => 'x'.repeat(n)) },
);

function value(name: string): fc.Arbitrary<string> {
  const known = KNOWN_VALUES[name];
  return known === undefined
    ? text
    : fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 2, arbitrary: text });
}

function paramsFor(operation: OperationSpec): fc.Arbitrary<Array<[string, string]>> {
  const exact = fc.tuple(
    ...operation.parameters.map((p) => value(p.wireName).map((v): [string, string] => [p.wireName, v])),
  );
  return fc.oneof(
    { weight: 6, arbitrary: exact },
    // Missing, repeated, unknown, reordered, or the name in another letter case.
    { weight: 1, arbitrary: exact.chain((ps) => fc.subarray(ps)) },
    { weight: 1, arbitrary: exact.chain((ps) => fc.shuffledSubarray([...ps, ...ps], { minLength: 1 })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(exact, fc.constantFrom('extra', 'ID', 'Phone', 'a b', 'x[]'), text)
        .map(([ps, k, v]) => [...ps, [k, v] as [string, string]]),
    },
  );
}

const contentTypes: Record<Binding, fc.Arbitrary<string | null>> = {
  soap11: fc.constantFrom(
    null,
    'text/xml',
    'TEXT/XML; Charset="UTF-8"',
    'text/xml; charset=iso-8859-1',
    'text/xml; charset=utf-16',
    'text/xml; charset=bogus',
    'application/soap+xml; charset=utf-8',
    'application/json',
    'multipart/form-data; boundary=x',
    '',
  ),
  soap12: fc.constantFrom(
    null,
    'application/soap+xml',
    `application/soap+xml; charset=utf-8; action="${NS}Nope"`,
    'application/soap+xml; action=',
    'application/soap+xml; charset=windows-1256',
    'text/xml; charset=utf-8',
    'text/plain',
    '',
  ),
  get: fc.constantFrom(null, 'text/xml', 'application/json'),
  post: fc.constantFrom(
    null,
    'application/x-www-form-urlencoded; charset=utf-8',
    'application/x-www-form-urlencoded; charset=latin1',
    'text/xml',
    'application/json',
    'multipart/form-data',
    '',
  ),
};

const soapActions = (operation: string): fc.Arbitrary<string | null | undefined> =>
  fc.constantFrom(
    undefined,
    undefined,
    undefined,
    null,
    '""',
    '',
    `${NS}${operation}`,
    `"${NS}${operation.toUpperCase()}"`,
    `"${NS}Nope"`,
    '"urn:other#x"',
    `"${encodeURIComponent(NS + operation)}"`,
    `"${'a'.repeat(3000)}"`,
    '"\u00e9"',
  );

const hostility: fc.Arbitrary<Hostility> = fc.oneof(
  { weight: 30, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('deep' as const),
      depth: fc.oneof(fc.integer({ min: 2, max: 200 }), fc.integer({ min: 200, max: 20_000 })),
      where: fc.constantFrom('header' as const, 'body' as const, 'parameter' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('attributes' as const), count: fc.integer({ min: 10, max: 20_000 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('doctype' as const), entities: fc.integer({ min: 0, max: 10 }) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('binary' as const),
      bytes: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 300 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('huge' as const),
      bytes: fc.integer({ min: BODY_LIMIT - 1024, max: BODY_LIMIT * 3 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('bad-utf8' as const), at: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('long-query' as const),
      length: fc.oneof(fc.integer({ min: 1000, max: 16_000 }), fc.integer({ min: 16_500, max: 100_000 })),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('raw-url-bytes' as const),
      bytes: fc.array(fc.integer({ min: 0x80, max: 0xff }), { minLength: 1, maxLength: 8 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('bad-escapes' as const),
      escapes: fc.array(
        fc.constantFrom(
          '%',
          '%%',
          '%zz',
          '%C3%28',
          '%FF',
          '%ED%A0%80',
          '%u',
          '%uZZZZ',
          '%uD800',
          '%00',
          '%2',
          '%E2%82',
        ),
        {
          minLength: 1,
          maxLength: 4,
        },
      ),
    }),
  },
);

const callCase: fc.Arbitrary<CallCase> = fc
  .tuple(fc.constantFrom(...OPERATIONS), fc.constantFrom<Binding>('soap11', 'soap12', 'get', 'post'))
  .chain(([{ endpoint, operation }, binding]) =>
    fc.record({
      type: fc.constant('call' as const),
      binding: fc.constant(binding),
      endpoint: fc.constantFrom(endpoint, endpoint, endpoint, endpoint.toLowerCase(), 'Nope'),
      operation: fc.constantFrom(
        operation.wireName,
        operation.wireName,
        operation.wireName,
        'Nope',
        operation.wireName.toLowerCase(),
      ),
      params: paramsFor(operation),
      contentType: fc.oneof(
        { weight: 4, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: contentTypes[binding] },
      ),
      soapAction: binding === 'soap11' ? soapActions(operation.wireName) : fc.constant(undefined),
      hostility,
    }),
  );

const documentCase: fc.Arbitrary<DocumentCase> = fc.record({
  type: fc.constant('document' as const),
  method: fc.constantFrom('GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'FOO'),
  target: fc.oneof(
    fc
      .constantFrom(...ENDPOINTS.map((e) => e.name))
      .chain((name) =>
        fc.constantFrom(
          `/${name}.asmx?wsdl`,
          `/${name}.asmx?WSDL`,
          `/${name}.asmx?disco`,
          `/${name}.asmx`,
          `/${name}.asmx?op=${name}`,
          `/${name}.asmx?wsdl=1`,
          `/${name.toUpperCase()}.ASMX?wsdl`,
          `/${name}.asmx/`,
          `/${name}.asmx?op=%ZZ`,
        ),
      ),
    fc.constantFrom(
      '/',
      '/nope',
      '/x.asmx',
      '/%2e%2e/etc/passwd',
      '/../../etc/passwd',
      '/.env',
      '/healthz',
      '/NotificationNotes.asmx/../main.js',
      '*',
      '//',
      '/a?b=%',
    ),
  ),
});

const framingCase: fc.Arbitrary<FramingCase> = fc.oneof(
  fc.record({
    type: fc.constant('framing' as const),
    head: fc.constantFrom(
      'POST /NotificationNotes.asmx HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Length: 400\r\n',
      'POST /AuthCodeSending.asmx/AuthCode HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 90\r\n',
      'POST /NotificationNotes.asmx HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nTransfer-Encoding: chunked\r\n',
    ),
    body: fc.constantFrom(
      '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Bo',
      'code=1234&pho',
      '5\r\n<soap',
    ),
    abandon: fc.constant(true),
  }),
  fc.record({
    type: fc.constant('framing' as const),
    head: fc.constantFrom(
      'GET /NotificationNotes.asmx HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n',
      'POST /NotificationNotes.asmx HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n',
      'POST /NotificationNotes.asmx HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n',
      'POST /NotificationNotes.asmx HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n',
      'GET /NotificationNotes.asmx?wsdl HTTP/9.9\r\nHost: x\r\n',
      'GET /NotificationNotes.asmx?wsdl HTTP/1.1\r\nHost: x\r\nX: \u0001\r\n',
      `GET /NotificationNotes.asmx?wsdl HTTP/1.1\r\nHost: x\r\nX-Big: ${'h'.repeat(20_000)}\r\n`,
    ),
    body: fc.constantFrom('', 'zz\r\nxx\r\n', '0\r\n\r\n'),
    abandon: fc.constant(false as const),
  }),
);

export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.oneof(
  { weight: 16, arbitrary: callCase },
  { weight: 2, arbitrary: documentCase },
  { weight: 1, arbitrary: framingCase },
);

function xmlEscape(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function nested(depth: number): string {
  return `${'<d>'.repeat(depth)}${'</d>'.repeat(depth)}`;
}

function soapBody(c: CallCase): Buffer {
  const h = c.hostility;
  const version = c.binding === 'soap11' ? SOAP11 : SOAP12;
  const params = c.params.map(([k, v]) => `<${k}>${xmlEscape(v)}</${k}>`).join('');
  const deep = h.kind === 'deep' ? nested(h.depth) : '';
  const attributes = h.kind === 'attributes' ? Array.from({ length: h.count }, (_, i) => ` a${i}="${i}"`).join('') : '';
  const header = h.kind === 'deep' && h.where === 'header' ? `<soap:Header>${deep}</soap:Header>` : '';
  const inBody = h.kind === 'deep' && h.where === 'body' ? deep : '';
  const inParam = h.kind === 'deep' && h.where === 'parameter' ? deep : '';
  const doctype =
    h.kind === 'doctype'
      ? `<!DOCTYPE soap:Envelope [<!ENTITY e0 "lol">${Array.from({ length: h.entities }, (_, i) => `<!ENTITY e${i + 1} "&e${i};&e${i};&e${i};&e${i};&e${i};&e${i};&e${i};&e${i};&e${i};&e${i};">`).join('')}]>`
      : '';
  const entityUse = h.kind === 'doctype' ? `&e${h.entities};` : '';
  let xml = `<?xml version="1.0" encoding="utf-8"?>${doctype}<soap:Envelope xmlns:soap="${version}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"${attributes}>${header}<soap:Body>${inBody}<${c.operation} xmlns="${NS}">${params}${inParam}${entityUse}</${c.operation}></soap:Body></soap:Envelope>`;
  if (h.kind === 'truncate') xml = xml.slice(0, h.at % xml.length);
  return mangle(Buffer.from(xml, 'utf8'), h);
}

/** The hostilities that apply to any body: binary, invalid UTF-8, oversized. */
function mangle(body: Buffer, h: Hostility): Buffer {
  if (h.kind === 'binary') return Buffer.from(h.bytes);
  if (h.kind === 'bad-utf8') {
    const at = body.length === 0 ? 0 : h.at % body.length;
    return Buffer.concat([body.subarray(0, at), Buffer.from([0xc3, 0x28, 0xff, 0xed, 0xa0, 0x80]), body.subarray(at)]);
  }
  if (h.kind === 'huge') return Buffer.concat([body, Buffer.alloc(Math.max(0, h.bytes - body.length), 0x20)]);
  return body;
}

function query(c: CallCase): Buffer {
  const h = c.hostility;
  let q = c.params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  if (h.kind === 'bad-escapes') q += `&${c.params[0]?.[0] ?? 'x'}=${h.escapes.join('')}`;
  if (h.kind === 'long-query') q += `&pad=${'p'.repeat(h.length)}`;
  if (h.kind === 'truncate') q = q.slice(0, h.at % (q.length + 1));
  const bytes = Buffer.from(q, 'latin1');
  return h.kind === 'raw-url-bytes' ? Buffer.concat([bytes, Buffer.from('&r='), Buffer.from(h.bytes)]) : bytes;
}

/** The exact bytes of a case's request. */
export function requestBytes(c: FuzzCase): Buffer {
  if (c.type === 'document') return rawRequest(c.method, c.target, c.method === 'GET' ? [] : [['Content-Length', '0']]);
  if (c.type === 'framing') return Buffer.from(`${c.head}\r\n${c.body}`, 'latin1');
  const path = `/${c.endpoint}.asmx`;
  const headers: Array<[string, string]> = [];
  if (c.binding === 'get') {
    const target = Buffer.concat([Buffer.from(`${path}/${c.operation}?`), query(c)]);
    if (c.contentType !== null) headers.push(['Content-Type', c.contentType]);
    return rawRequest('GET', target, headers);
  }
  let body: Buffer;
  if (c.binding === 'post') {
    const h = c.hostility;
    body = mangle(query(c), h);
    headers.push(['Content-Type', c.contentType ?? 'application/x-www-form-urlencoded']);
    const target =
      h.kind === 'long-query' || h.kind === 'raw-url-bytes' || h.kind === 'bad-escapes'
        ? Buffer.concat([Buffer.from(`${path}/${c.operation}?`), query(c)])
        : `${path}/${c.operation}`;
    headers.push(['Content-Length', String(body.length)]);
    return rawRequest('POST', target, headers, body);
  }
  body = soapBody(c);
  if (c.binding === 'soap11') {
    headers.push(['Content-Type', c.contentType ?? 'text/xml; charset=utf-8']);
    const action = c.soapAction === undefined ? `"${NS}${c.operation}"` : c.soapAction;
    if (action !== null) headers.push(['SOAPAction', action]);
  } else {
    headers.push([
      'Content-Type',
      c.contentType ?? `application/soap+xml; charset=utf-8; action="${NS}${c.operation}"`,
    ]);
  }
  headers.push(['Content-Length', String(body.length)]);
  const h = c.hostility;
  const target = h.kind === 'long-query' ? `${path}?pad=${'p'.repeat(h.length)}` : path;
  return rawRequest('POST', target, headers, body);
}

/** The request target's length in bytes (start line between method and version). */
/** The request target of a request's first line, as sent. */
export function requestTarget(bytes: Buffer): string {
  const line = bytes.subarray(0, bytes.indexOf('\r\n')).toString('latin1');
  return line.slice(line.indexOf(' ') + 1, line.lastIndexOf(' '));
}

export function targetLength(bytes: Buffer): number {
  const lineEnd = bytes.indexOf('\r\n');
  const line = bytes.subarray(0, lineEnd);
  return line.lastIndexOf(' ') - line.indexOf(' ') - 1;
}
