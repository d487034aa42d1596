// The plain-envelope reader (src/wire/soap/plain-envelope.ts) in front of
// saxes must read every document exactly as saxes does: the same result,
// positions included, or the same error. Each case is read both ways and
// compared; a fixed seed mutates envelopes at random for the cases nobody
// thought of. The common envelopes must take the plain path, or it would
// be saving nothing.
import { readPlainEnvelope } from '../../src/wire/soap/plain-envelope';
import { readSoapRequest, readWithSaxes } from '../../src/wire/soap/envelope-reader';

const ENV11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const ENV12 = 'http://www.w3.org/2003/05/soap-envelope';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
const DECL = '<?xml version="1.0" encoding="utf-8"?>';

const envelope = (env: string, body: string, header = '', decl = DECL) =>
  `${decl}<soap:Envelope xmlns:soap="${env}" xmlns:xsi="${XSI}">${header}<soap:Body>${body}</soap:Body></soap:Envelope>`;
const token = (id: string) => `<GetTokenDevice xmlns="http://tempuri.org/"><id>${id}</id></GetTokenDevice>`;

const COMMON = [
  envelope(ENV11, token('dev-1')),
  envelope(ENV12, token('dev-1')),
  `${DECL}\n<soap:Envelope xmlns:soap="${ENV11}">\n  <soap:Body>\n    ${token('dev-1')}\n  </soap:Body>\n</soap:Envelope>\n`,
  envelope(
    ENV11,
    `<t:Send xmlns:t="http://tempuri.org/"><t:a>x &amp; y &lt;z&gt; &quot;q&apos; &#1575;&#x628;</t:a><t:b xsi:nil="true"/><t:c/></t:Send>`,
  ),
  envelope(ENV11, '<Send xmlns="http://tempuri.org/"><name>عبد الله</name><n>\t1\n2 </n></Send>'),
  envelope(
    ENV11,
    token('x'),
    `<soap:Header><h:Auth xmlns:h="urn:h" soap:mustUnderstand="1">k</h:Auth><o xmlns="urn:o" soap:mustUnderstand='0'/></soap:Header>`,
  ),
  envelope(ENV11, token('x'), '', `<?xml version='1.0' standalone = "yes" ?>`),
  envelope(ENV11, token('x'), '', ''),
  `<soap:Envelope xmlns:soap="${ENV11}"><soap:Body/></soap:Envelope>`,
  `<soap:Envelope xmlns:soap="${ENV11}"><soap:Header/></soap:Envelope>`,
  `<Envelope xmlns="${ENV12}"><Body><Op xmlns="urn:x"><p><deep>a<deeper>b</deeper>c</deep></p></Op></Body></Envelope>`,
  `<soap:Envelope xmlns:soap="${ENV11}"><soap:Body><Op xmlns="urn:x"><p xmlns="">v</p><q xmlns:a="urn:a" a:k="1" k="2">w</q></Op><Second/></soap:Body></soap:Envelope>`,
  `<soap:Envelope xmlns:soap="${ENV11}"><other/><soap:Body><Op/></soap:Body>text</soap:Envelope>`,
  `<Envelope xmlns="urn:not-soap"><Body/></Envelope>`,
  `<soap:Envelop xmlns:soap="${ENV11}"><soap:Body/></soap:Envelop>`,
];

const UNUSUAL = [
  envelope(ENV11, '<Op xmlns="urn:x"><p><![CDATA[<a&b>]]></p></Op>'),
  envelope(ENV11, '<Op xmlns="urn:x"><!-- c --><p>v</p></Op>'),
  envelope(ENV11, '<Op xmlns="urn:x"><?pi x?><p>v</p></Op>'),
  `<!DOCTYPE x>${envelope(ENV11, token('x'), '', '')}`,
  envelope(ENV11, token('a\r\nb')),
  envelope(ENV11, token('😀')),
  envelope(ENV11, token('a]]>b')),
  envelope(ENV11, token('a&unknown;b')),
  envelope(ENV11, token('a&#0;b')),
  envelope(ENV11, token('a&#x110000;b')),
  envelope(ENV11, token('a&#13;b')),
  envelope(ENV11, token('a&constructor;b')),
  envelope(ENV11, token('a&b')),
  envelope(ENV11, token('a<b')),
  envelope(ENV11, token('\u0001')),
  envelope(ENV11, '<Op xmlns="urn:x"><p a="1" a="2">v</p></Op>'),
  envelope(ENV11, '<Op xmlns="urn:x" xmlns:a="urn:a" xmlns:b="urn:a"><p a:k="1" b:k="2">v</p></Op>'),
  envelope(ENV11, '<Op xmlns="urn:x"><p a="1"b="2">v</p></Op>'),
  envelope(ENV11, '<Op xmlns="urn:x"><p a="x&amp;y">v</p></Op>'),
  envelope(ENV11, '<Op xmlns="urn:x"><p a="x\ty">v</p></Op>'),
  envelope(ENV11, '<Op xmlns="urn:x"><p a="x<y">v</p></Op>'),
  envelope(ENV11, '<Op xmlns="urn:x"><u:p>v</u:p></Op>'),
  envelope(ENV11, '<Op xmlns="urn:x"><p u:a="1">v</p></Op>'),
  envelope(ENV11, '<Op xmlns="urn:x"><p>v</q></Op>'),
  envelope(ENV11, '<Op xmlns="urn:x"><p>v</p>'),
  envelope(ENV11, '<Op xmlns="urn:x"><p>v</p></Op></Op>'),
  envelope(ENV11, '<Op xmlns:p=""><p>v</p></Op>'),
  envelope(ENV11, '<Op xmlns:xml="urn:y"><p>v</p></Op>'),
  envelope(ENV11, '<Op xml:lang="en"><p>v</p></Op>'),
  envelope(ENV11, '<Op xmlns="urn:x"><1p>v</1p></Op>'),
  envelope(ENV11, '<Op xmlns="urn:x"><p:>v</p:></Op>'),
  envelope(ENV11, '<Op xmlns="urn:x"><p / >v</Op>'),
  envelope(ENV11, '<Op xmlns="urn:x"><p >v</p ></Op>'),
  `${envelope(ENV11, token('x'))}<!-- after -->`,
  `${envelope(ENV11, token('x'))}trailing`,
  `${envelope(ENV11, token('x'))}<second/>`,
  `  ${envelope(ENV11, token('x'))}`,
  `\uFEFF${envelope(ENV11, token('x'))}`,
  envelope(ENV11, token('x'), '', '<?xml version="1.1"?>'),
  envelope(ENV11, token('x'), '', '<?xml encoding="utf-8" version="1.0"?>'),
  'plain text',
  '<',
  '<soap:Envelope',
  `<soap:Envelope xmlns:soap="${ENV11}"`,
  `<soap:Envelope xmlns:soap="${ENV11}">`,
];

type Read = { ok: unknown } | { error: string };
function attempt(read: () => unknown): Read {
  try {
    return { ok: read() };
  } catch (err) {
    return { error: `${(err as Error).name}: ${(err as Error).message}` };
  }
}
const both = (xml: string, maxDepth?: number) => ({
  plain: attempt(() => readSoapRequest(xml, maxDepth)),
  saxes: attempt(() => readWithSaxes(xml, maxDepth)),
});
const takesPlainPath = (xml: string, maxDepth = 64) =>
  readPlainEnvelope(xml, maxDepth, { open: () => undefined, text: () => undefined, close: () => undefined });

describe('the plain-envelope reader', () => {
  it.each(COMMON.map((xml) => [xml]))('reads %s as saxes does, without saxes', (xml) => {
    const { plain, saxes } = both(xml);
    expect(plain).toEqual(saxes);
    expect(takesPlainPath(xml)).toBe(true);
  });

  it.each(UNUSUAL.map((xml) => [xml]))('leaves %s to saxes, with the same result', (xml) => {
    const { plain, saxes } = both(xml);
    expect(plain).toEqual(saxes);
  });

  it('reads tags it has read before (kept by the reader) as saxes does, at other lines and columns', () => {
    for (const xml of COMMON) {
      // Once to fill the reader's kept tags, then again, shifted, from them.
      both(xml);
      for (const shifted of [xml, xml.replace('<soap:Body>', '\n  <soap:Body>'), xml.replace(/<id>/g, '\n<id>')]) {
        const { plain, saxes } = both(shifted);
        expect(plain).toEqual(saxes);
      }
    }
  });

  it('stops at the depth limit as saxes does', () => {
    const xml = envelope(ENV11, '<Op xmlns="urn:x"><p><q><r>v</r></q></p></Op>');
    for (const depth of [3, 4, 5, 6, 7]) expect(both(xml, depth).plain).toEqual(both(xml, depth).saxes);
    expect(takesPlainPath(xml, 6)).toBe(true);
    expect(takesPlainPath(xml, 5)).toBe(false);
  });

  it('agrees with saxes on 4,000 envelopes mutated at random', () => {
    // A fixed seed: the same cases on every run.
    let seed = 29;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pieces = [
      '"urn:a "',
      '<',
      '>',
      '/',
      '&',
      ';',
      '"',
      "'",
      '=',
      ':',
      ' ',
      '\n',
      '\t',
      'a',
      'x:',
      'xmlns',
      '&amp;',
      '&#65;',
      ']]>',
      '<!--',
      '<?',
      'é',
      '\r',
    ];
    let plainTaken = 0;
    for (let n = 0; n < 4000; n++) {
      let xml = COMMON[n % COMMON.length];
      for (let edits = 1 + Math.floor(random() * 3); edits > 0; edits--) {
        const at = Math.floor(random() * (xml.length + 1));
        const cut = random() < 0.5 ? Math.floor(random() * 4) : 0;
        const insert = random() < 0.7 ? pieces[Math.floor(random() * pieces.length)] : '';
        xml = xml.slice(0, at) + insert + xml.slice(at + cut);
      }
      const { plain, saxes } = both(xml);
      if (JSON.stringify(plain) !== JSON.stringify(saxes)) expect({ xml, plain }).toEqual({ xml, plain: saxes });
      if (takesPlainPath(xml)) plainTaken++;
    }
    // Many mutations leave a readable envelope: those must have been read without saxes.
    expect(plainTaken).toBeGreaterThan(400);
  });
});
