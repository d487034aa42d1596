// The envelope reader reuses one parser between reads; nothing of one read
// may reach the next, whether it succeeded or failed half-way.
import { EnvelopeVersionError, XmlReadError, readSoapRequest } from '../../src/wire/soap/envelope-reader';

const ENV11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const ENV12 = 'http://www.w3.org/2003/05/soap-envelope';

const call = (env: string, body: string, header = '') =>
  `<?xml version="1.0" encoding="utf-8"?>\n<soap:Envelope xmlns:soap="${env}">${header}\n<soap:Body>\n${body}\n</soap:Body></soap:Envelope>`;

const TOKEN = call(ENV11, '<GetTokenDevice xmlns="http://tempuri.org/"><id>dev-1</id></GetTokenDevice>');
const TOKEN_READ = {
  version: '1.1',
  mustUnderstand: [],
  hasBody: true,
  bodyElement: { namespace: 'http://tempuri.org/', localName: 'GetTokenDevice' },
  children: [{ namespace: 'http://tempuri.org/', localName: 'id', text: 'dev-1', nil: false, line: 4, column: 49 }],
};

describe('readSoapRequest, read after read', () => {
  it('reads the same envelope twice to the same result, positions included', () => {
    expect(readSoapRequest(TOKEN)).toEqual(TOKEN_READ);
    expect(readSoapRequest(TOKEN)).toEqual(TOKEN_READ);
  });

  it.each([
    ['malformed XML, stopped inside an element', `${TOKEN.slice(0, 150)}<`, XmlReadError],
    ['a DOCTYPE', `<!DOCTYPE x [<!ENTITY a "b">]>${TOKEN.slice(TOKEN.indexOf('<soap:'))}`, XmlReadError],
    [
      'a root that is no envelope',
      '<Envelope xmlns="urn:other"><Body><x:GetTokenDevice xmlns:x="urn:y"/></Body></Envelope>',
      EnvelopeVersionError,
    ],
    [
      'an unclosed body',
      call(ENV11, '<GetTokenDevice xmlns="http://tempuri.org/"><id>dev-1</id>').replace(
        '</soap:Body></soap:Envelope>',
        '',
      ),
      XmlReadError,
    ],
  ])('after %s, the next read starts clean', (_name, bad, error) => {
    expect(() => readSoapRequest(bad)).toThrow(error);
    expect(readSoapRequest(TOKEN)).toEqual(TOKEN_READ);
  });

  it('keeps nothing of a previous read: headers, version, children', () => {
    const withHeader = call(
      ENV12,
      '<Other xmlns="http://tempuri.org/"><a>1</a><b xsi:nil="true" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/></Other>',
      '<soap:Header><Auth soap:mustUnderstand="1" xmlns="urn:a"/></soap:Header>',
    );
    const first = readSoapRequest(withHeader);
    expect(first).toMatchObject({
      version: '1.2',
      mustUnderstand: ['Auth'],
      children: [{ localName: 'a' }, { localName: 'b', nil: true }],
    });
    expect(readSoapRequest(TOKEN)).toEqual(TOKEN_READ);
  });

  it('names the position of an error in the document, counted from the start of each read', () => {
    readSoapRequest(TOKEN);
    expect(() =>
      readSoapRequest(
        '<?xml version="1.0"?>\n<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">\n<a></b>',
      ),
    ).toThrow(/^There is an error in XML document \(3, 7\)\. ---> Unexpected close tag\./);
  });
});

describe('readSoapRequest, nesting depth', () => {
  const nested = (levels: number) => `${'<a>'.repeat(levels)}${'</a>'.repeat(levels)}`;

  it.each([
    ['the Body', call(ENV11, `<GetTokenDevice xmlns="http://tempuri.org/"><id>${nested(200)}</id></GetTokenDevice>`)],
    [
      'a Header',
      call(
        ENV12,
        '<GetTokenDevice xmlns="http://tempuri.org/"><id>dev-1</id></GetTokenDevice>',
        `<soap:Header>${nested(200)}</soap:Header>`,
      ),
    ],
  ])('refuses elements nested past the limit in %s, and the next read starts clean', (_where, xml) => {
    expect(() => readSoapRequest(xml)).toThrow(XmlReadError);
    expect(() => readSoapRequest(xml)).toThrow(
      /^There is an error in XML document \(\d+, \d+\)\. ---> Elements are nested deeper than 64 levels\.$/,
    );
    expect(readSoapRequest(TOKEN)).toEqual(TOKEN_READ);
  });

  it('takes a lower limit when given one', () => {
    expect(() => readSoapRequest(TOKEN, 3)).toThrow(/nested deeper than 3 levels/);
    expect(readSoapRequest(TOKEN, 4)).toEqual(TOKEN_READ);
  });
});
