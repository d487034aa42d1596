// The help pages' samples (docs/design.md#rule-25) against the service itself:
// each parses as XML, each is what the page shows, and each, replayed with
// its placeholders filled with real values, gets the answer its response
// sample shows.
import { SaxesParser } from 'saxes';
import { ENDPOINTS, loadServiceModel, type EndpointModel, type OperationModel } from '../../src/contract';
import { operationSamples, type Sample, type SampleText } from '../../src/wire/help';
import type { DataSet } from '../../src/store';
import { FIXTURES } from '../support/fixtures';
import { byName, findAll, parsePage, textOf } from '../support/html-page';
import { startTestService, type TestService } from '../support/service';
import { NS, bodyText, call } from '../support/wire';

// Two students in School B, so that the list answer has the two items ASMX's sample shows.
const DATA: DataSet = {
  ...FIXTURES,
  students: [
    ...(FIXTURES.students ?? []),
    {
      id: '2002',
      school: 'https://school-b.example',
      fullName: 'Nadia & <Haddad>',
      deviceId: 'dev-2001',
      active: '1',
      classId: '9C',
    },
  ],
};

/** Real values for every operation, and the values its answer holds, in document order. */
const CALLS: Readonly<
  Record<string, { readonly values: Readonly<Record<string, string>>; readonly results: readonly string[] }>
> = {
  AuthCode: { values: { code: '482913', phone: '0944123456' }, results: [] },
  GetStudentsAudtiNote: { values: { SubjectID: 'MATH', Class_id: '7A' }, results: [] },
  UpdateNoteState: { values: { STDid: '1001', note_type: 'behaviour' }, results: [] },
  GetStudentsAbcenceByID: { values: { STDid: '1001' }, results: [] },
  GetStudentSchool: {
    values: { school_base_url: 'https://school-b.example', show_active: '1' },
    results: ['2001', 'Maya Haddad', 'dev-2001', '1', '2002', 'Nadia & <Haddad>', 'dev-2001', '1'],
  },
  SendNotificationType: {
    values: { id: '1001', baseUrlSchool: 'https://school-a.example', TypeNotfication: 'absence' },
    results: [],
  },
  GetTokenDevice: { values: { id: 'dev-1001' }, results: ['fcm:AAAA-1001'] },
};

const TARGET = { host: 'help.example:8080' };
const LENGTH = '\u0000length\u0000';
const escapeXml = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

let service: TestService;
let models: readonly EndpointModel[];
beforeAll(async () => {
  service = await startTestService({ data: DATA });
  models = await loadServiceModel(NS);
});
afterAll(async () => {
  await service.close();
});

const cases = ENDPOINTS.flatMap((e) => e.operations.map((op) => [e.name, op.wireName] as const));

function samplesOf(endpoint: string, operation: string): { op: OperationModel; samples: readonly Sample[] } {
  const model = models.find((m) => m.name === endpoint) as EndpointModel;
  const op = model.operations.find((o) => o.wireName === operation) as OperationModel;
  return { op, samples: operationSamples(op, model.namespace, { ...TARGET, path: `/${endpoint}.asmx` }) };
}

/** The sample as the page shows it: every placeholder as its word. */
function words(tokens: SampleText): string {
  return tokens
    .map((t) => (t.kind === 'text' ? t.text : t.kind === 'key' ? t.name : t.kind === 'length' ? 'length' : t.word))
    .join('');
}

/** The sample with real values: XML-escaped in SOAP (a char as its UTF-16 code), URL-encoded in a query or form. */
function filled(tokens: SampleText, sample: Sample, op: OperationModel): string {
  const call = CALLS[op.wireName];
  const soap = sample.binding.startsWith('SOAP');
  let result = 0;
  return tokens
    .map((t) => {
      switch (t.kind) {
        case 'text':
          return t.text;
        case 'key':
          return t.name;
        case 'length':
          return LENGTH;
        case 'result':
          return escapeXml(call.results[result++]);
        case 'parameter': {
          const value = call.values[t.name];
          const isChar = op.parameters.find((p) => p.wireName === t.name)?.type === 'char';
          return soap ? escapeXml(isChar ? String(value.charCodeAt(0)) : value) : encodeURIComponent(value);
        }
      }
    })
    .join('');
}

/** Head lines and body; the Content-Length placeholder becomes the body's length in bytes. */
function message(text: string): { lines: string[]; body: string } {
  const split = text.indexOf('\n\n');
  const head = split < 0 ? text : text.slice(0, split);
  const body = split < 0 ? '' : text.slice(split + 2);
  return { lines: head.replace(LENGTH, String(Buffer.byteLength(body))).split('\n'), body };
}

const xmlPart = (text: string) => (text.includes('\n\n') ? text.slice(text.indexOf('\n\n') + 2) : '');

describe('every operation has replay values', () => {
  it('for each of its parameters and no other', () => {
    expect(Object.keys(CALLS).sort()).toEqual(cases.map(([, op]) => op).sort());
    for (const spec of ENDPOINTS) {
      for (const op of spec.operations)
        expect(Object.keys(CALLS[op.wireName].values)).toEqual(op.parameters.map((p) => p.wireName));
    }
  });
});

describe.each(cases)('%s.asmx?op=%s samples', (endpoint, operation) => {
  it('are what the page shows', async () => {
    const { samples } = samplesOf(endpoint, operation);
    const res = await call(service.app).get(`/${endpoint}.asmx?op=${operation}`).set('Host', TARGET.host);
    const shown = findAll(parsePage(bodyText(res)), byName('pre')).map(textOf);
    expect(shown).toEqual(samples.flatMap((s) => [words(s.request), words(s.response)]));
  });

  it('parse as XML wherever they hold XML', () => {
    const { samples } = samplesOf(endpoint, operation);
    for (const sample of samples) {
      for (const xml of [xmlPart(words(sample.request)), xmlPart(words(sample.response))]) {
        if (sample.binding.startsWith('HTTP') && !xml.startsWith('<')) continue; // a form body, or a void answer
        expect(xml.startsWith('<?xml version="1.0" encoding="utf-8"?>\n<')).toBe(true);
        expect(() => new SaxesParser({ xmlns: true }).write(xml).close()).not.toThrow();
      }
    }
  });

  it.each(['SOAP 1.1', 'SOAP 1.2', 'HTTP GET', 'HTTP POST'])(
    'replayed over %s with real values, get the answer the sample shows',
    async (binding) => {
      const { op, samples } = samplesOf(endpoint, operation);
      const sample = samples.find((s) => s.binding === binding) as Sample;

      const request = message(filled(sample.request, sample, op));
      const [method, url, version] = request.lines[0].split(' ');
      expect(version).toBe('HTTP/1.1');
      const req = method === 'GET' ? call(service.app).get(url) : call(service.app).post(url);
      for (const line of request.lines.slice(1)) {
        const colon = line.indexOf(': ');
        req.set(line.slice(0, colon), line.slice(colon + 2));
      }
      const res = await (request.body === '' ? req : req.send(request.body));

      const expected = message(filled(sample.response, sample, op));
      // The service writes SOAP on one line and the HTTP bodies with CRLF; the samples are indented for reading.
      const body = binding.startsWith('SOAP')
        ? expected.body.replace(/>\s+</g, '><')
        : expected.body.replace(/\n/g, '\r\n');
      expect(expected.lines[0]).toBe('HTTP/1.1 200 OK');
      expect([res.status, bodyText(res)]).toEqual([200, body]);
      const headers = Object.fromEntries(expected.lines.slice(1).map((line) => line.split(': ')));
      if ('Content-Length' in headers) headers['Content-Length'] = String(Buffer.byteLength(body));
      for (const [name, value] of Object.entries(headers))
        expect([name, res.headers[name.toLowerCase()]]).toEqual([name, value]);
      if (body === '') expect(res.headers['content-type']).toBeUndefined();
    },
  );
});
