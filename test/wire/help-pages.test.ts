// The help pages (docs/design.md#help-pages, rules 24-25, and the root page): their
// structure and texts, escaping, and HELP_PAGES=false.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ENDPOINTS, type EndpointSpec } from '../../src/contract';
import { byName, findAll, findOne, parsePage, textOf, type PageElement } from '../support/html-page';
import { startTestService, type TestService } from '../support/service';
import { bodyText, call } from '../support/wire';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.close();
});

const VERSION = (
  JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }
).version;
const ordinal = (names: string[]) => [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const operationNames = (spec: EndpointSpec) => spec.operations.map((op) => op.wireName);

/** A fixed Host: supertest's own names a new port on every request, and the samples show it. */
async function page(url: string, host = 'help.example:8080'): Promise<{ html: string; root: PageElement }> {
  const res = await call(service.app).get(url).set('Host', host);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  const html = bodyText(res);
  return { html, root: parsePage(html) };
}

const links = (root: PageElement) => findAll(root, byName('a')).map((a) => [a.attributes.href, textOf(a)]);
const headings = (root: PageElement) =>
  findAll(root, byName('h1', 'h2', 'h3', 'h4')).map((h) => Number(h.name.slice(1)));
const titleOf = (root: PageElement) => textOf(findOne(root, byName('title')));

/** Headings start at h1 and never skip a level going down. */
function expectHeadingsInOrder(root: PageElement): void {
  const levels = headings(root);
  expect(levels[0]).toBe(1);
  levels.forEach((level, i) => {
    if (i > 0) expect(level).toBeLessThanOrEqual(levels[i - 1] + 1);
  });
}

describe('GET /', () => {
  it('lists every endpoint with its operations, its service description and the version', async () => {
    const { root } = await page('/');
    expect(titleOf(root)).toBe('Student Notification Service');
    expectHeadingsInOrder(root);
    const endpoints = findAll(root, byName('h3')).map(textOf);
    expect(endpoints).toEqual(ordinal(ENDPOINTS.map((e) => e.name)));
    const all = links(root);
    for (const spec of ENDPOINTS) {
      expect(all).toContainEqual([`${spec.name}.asmx`, spec.name]);
      expect(all).toContainEqual([`${spec.name}.asmx?WSDL`, 'Service Description (WSDL)']);
      for (const op of operationNames(spec)) expect(all).toContainEqual([`${spec.name}.asmx?op=${op}`, op]);
    }
    expect(textOf(findOne(root, byName('footer')))).toBe(`Student Notification Service, version ${VERSION}`);
  });

  it('links only to pages and documents that answer 200', async () => {
    const { root } = await page('/');
    for (const [href] of links(root)) {
      const res = await call(service.app).get(new URL(href, 'http://h/').pathname + new URL(href, 'http://h/').search);
      expect([href, res.status]).toEqual([href, 200]);
    }
  });
});

describe.each(ENDPOINTS.map((e) => [e.name, e] as const))('GET /%s.asmx', (name, spec) => {
  it('is the operation list: title, the intro sentence linking the WSDL, operations sorted ordinally', async () => {
    const { html, root } = await page(`/${name}.asmx`);
    expect(titleOf(root)).toBe(`${name} Web Service`);
    expect(textOf(findOne(root, byName('h1')))).toBe(name);
    expect(html).toContain(
      `<p>The following operations are supported.  For a formal definition, please review the <a href="${name}.asmx?WSDL">Service Description</a>.</p>`,
    );
    const listed = findAll(
      findOne(root, (e) => e.name === 'ul'),
      byName('a'),
    ).map((a) => [a.attributes.href, textOf(a)]);
    expect(listed).toEqual(ordinal(operationNames(spec)).map((op) => [`${name}.asmx?op=${op}`, op]));
    expect(html).toContain(`<link rel="alternate" type="text/xml" href="${name}.asmx?disco" />`);
    expectHeadingsInOrder(root);
  });

  it('has the tempuri.org advisory in the default namespace', async () => {
    const { root } = await page(`/${name}.asmx`);
    expect(findAll(root, byName('h2', 'h3')).map(textOf)).toEqual([
      'This web service is using http://tempuri.org/ as its default namespace.',
      'Recommendation: Change the default namespace before the XML Web service is made public.',
    ]);
  });

  it('is also the answer to an unknown query', async () => {
    const list = await page(`/${name}.asmx`);
    expect((await page(`/${name}.asmx?foo=bar`)).html).toBe(list.html);
    expect((await page(`/${name.toLowerCase()}.asmx`)).html).toBe(list.html);
  });
});

describe('the advisory', () => {
  it('is left out in another namespace', async () => {
    const other = await startTestService({ namespace: 'urn:school:notify' });
    try {
      const html = bodyText(await call(other.app).get('/NotificationNotes.asmx'));
      expect(html).not.toContain('tempuri.org');
      expect(html).toContain('?op=GetStudentSchool');
    } finally {
      await other.close();
    }
  });
});

describe.each(ENDPOINTS.flatMap((e) => e.operations.map((op) => [e.name, op.wireName, op] as const)))(
  'GET /%s.asmx?op=%s',
  (name, opName, op) => {
    it('links back, names the operation and has a test form posting one text input per parameter to the HTTP POST binding', async () => {
      const { html, root } = await page(`/${name}.asmx?op=${opName}`);
      expect(html).toContain(`<p>Click <a href="${name}.asmx">here</a> for a complete list of operations.</p>`);
      expect(textOf(findOne(root, byName('h2')))).toBe(opName);
      expect(html).toContain("<p>To test the operation using the HTTP POST protocol, click the 'Invoke' button.</p>");
      const form = findOne(root, byName('form'));
      expect(form.attributes).toMatchObject({ action: `${name}.asmx/${opName}`, method: 'POST', target: '_blank' });
      const inputs = findAll(form, byName('input'));
      const fields = inputs.filter((i) => i.attributes.type === 'text');
      expect(fields.map((i) => i.attributes.name)).toEqual(op.parameters.map((p) => p.wireName));
      const labels = new Map(findAll(form, byName('label')).map((l) => [l.attributes.for, textOf(l)]));
      for (const field of fields) expect(labels.get(field.attributes.id)).toBe(`${field.attributes.name}:`);
      expect(inputs.filter((i) => i.attributes.type === 'submit').map((i) => i.attributes.value)).toEqual(['Invoke']);
      expectHeadingsInOrder(root);
    });

    it('has the four sample blocks in ASMX order, each a request and a response with placeholders', async () => {
      const { html, root } = await page(`/${name}.asmx?op=${opName}`);
      const blocks = findAll(root, byName('section'));
      expect(blocks.map((b) => textOf(findOne(b, byName('h3'))))).toEqual([
        'SOAP 1.1',
        'SOAP 1.2',
        'HTTP GET',
        'HTTP POST',
      ]);
      for (const binding of ['SOAP 1.1', 'SOAP 1.2', 'HTTP GET', 'HTTP POST']) {
        expect(html).toContain(
          `<p>The following is a sample ${binding} request and response.  The <var>placeholders</var> shown need to be replaced with actual values.</p>`,
        );
      }
      for (const block of blocks) {
        const [request, response] = findAll(block, byName('pre')).map(textOf);
        expect(request).toMatch(/^(POST|GET) \//);
        expect(response).toMatch(/^HTTP\/1\.1 200 OK/);
        const words = findAll(block, byName('var')).map(textOf);
        if (op.parameters.length > 0) expect(words).toContain('string');
      }
    });

    it('answers ?OP= too: the key is read in any letter case', async () => {
      expect((await page(`/${name}.asmx?OP=${opName}`)).html).toBe((await page(`/${name}.asmx?op=${opName}`)).html);
    });
  },
);

describe('an unknown operation', () => {
  it.each([['Nope'], ['getstudentschool'], ['']])('?op=%s is the Method Not Found page', async (op) => {
    const { root } = await page(`/NotificationNotes.asmx?op=${op}`);
    expect(links(root)).toContainEqual(['NotificationNotes.asmx', 'here']);
    expect(textOf(findOne(root, byName('h2')))).toBe('Method Not Found');
    expect(findAll(root, byName('p')).map(textOf)).toContain(
      `Method '${op}' was not found in service NotificationNotes.`,
    );
    expect(findAll(root, byName('form'))).toEqual([]);
  });
});

describe('escaping', () => {
  const SCRIPT = '"><script>alert(1)</script><b a=\'';
  const scripts = (root: PageElement) => findAll(root, byName('script', 'b'));

  it('an operation name in the query cannot inject markup', async () => {
    const { root } = await page(`/NotificationNotes.asmx?op=${encodeURIComponent(SCRIPT)}`);
    expect(scripts(root)).toEqual([]);
    expect(findAll(root, byName('p')).map(textOf)).toContain(
      `Method '${SCRIPT}' was not found in service NotificationNotes.`,
    );
  });

  it('the address the samples show (Host header) cannot inject markup', async () => {
    const host = `h${SCRIPT}`;
    const { root } = await page('/NotificationNotes.asmx?op=GetStudentSchool', host);
    expect(scripts(root)).toEqual([]);
    const requests = findAll(root, byName('pre'))
      .map(textOf)
      .filter((text) => !text.startsWith('HTTP/'));
    expect(requests).toHaveLength(4);
    for (const request of requests) expect(request).toContain(`\nHost: ${host}`);
  });

  it('the page stays in its own origin: no script, no external asset, no inline handler', async () => {
    for (const url of ['/', '/NotificationNotes.asmx', '/NotificationNotes.asmx?op=GetStudentSchool']) {
      const { html, root } = await page(url);
      expect(findAll(root, byName('script', 'img', 'iframe', 'object'))).toEqual([]);
      expect(findAll(root, (e) => Object.keys(e.attributes).some((a) => a.startsWith('on')))).toEqual([]);
      expect(html).not.toMatch(/(href|src|action)="(https?:)?\/\//);
    }
  });
});

describe('HELP_PAGES=false', () => {
  let quiet: TestService;
  beforeAll(async () => {
    quiet = await startTestService({ helpPages: false });
  });
  afterAll(async () => {
    await quiet.close();
  });

  it.each([
    ['/NotificationNotes.asmx'],
    ['/NotificationNotes.asmx?op=GetStudentSchool'],
    ['/NotificationNotes.asmx?foo'],
  ])('GET %s answers as ASMX without the Documentation protocol', async (url) => {
    const res = await call(quiet.app).get(url);
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(bodyText(res)).toBe('Request format is unrecognized.\r\n');
  });

  it('has no root page', async () => {
    const res = await call(quiet.app).get('/');
    expect(res.status).toBe(404);
  });

  it('keeps ?wsdl and ?disco', async () => {
    expect((await call(quiet.app).get('/NotificationNotes.asmx?wsdl')).status).toBe(200);
    expect((await call(quiet.app).get('/NotificationNotes.asmx?disco')).status).toBe(200);
  });
});
