// The comparison of two answers (src/legacy-kit/compare/compare-answers.ts): XML
// compared by namespace and name, attributes in any order, whitespace between
// elements ignored, no DTD; headers that always differ ignored.
import { compareAnswers, parseIgnoreRules, type Answer } from '../../src/legacy-kit/compare';

const scope = { operation: 'GetTokenDevice', binding: 'http_get', case: 'known' };
const xml = (body: string, headers: Record<string, string> = {}): Answer => ({
  status: 200,
  headers: { 'content-type': 'text/xml; charset=utf-8', ...headers },
  body: Buffer.from(body, 'utf8'),
});

describe('compareAnswers', () => {
  it('takes other prefixes, attribute order and whitespace between elements as the same XML', () => {
    const a = xml('<a:root xmlns:a="urn:x" p="1" q="2"><a:item>v</a:item></a:root>');
    const b = xml('<root xmlns="urn:x" q="2" p="1">\r\n  <item>v</item>\r\n</root>');
    expect(compareAnswers(a, b, scope, []).outcome).toBe('same_xml');
    expect(compareAnswers(a, a, scope, []).outcome).toBe('same_bytes');
  });

  it('names the first difference by path: text, namespace, attribute, a missing element', () => {
    const first = (a: string, b: string) => compareAnswers(xml(a), xml(b), scope, []).unexplained[0];
    expect(first('<r><i>1</i><i>2</i></r>', '<r><i>1</i><i>3</i></r>')).toMatchObject({
      path: '/r/i[2]/text()',
      what: 'text',
    });
    expect(first('<r xmlns="urn:a"/>', '<r xmlns="urn:b"/>')).toMatchObject({ path: '/r', what: 'namespace' });
    expect(first('<r a="1"/>', '<r a="2"/>')).toMatchObject({ path: '/r/@a', what: 'attribute' });
    expect(first('<r><i/><j/></r>', '<r><i/></r>')).toMatchObject({ path: '/r/j', what: 'children' });
    // Whitespace inside a value counts.
    expect(first('<r><i>a</i></r>', '<r><i> a</i></r>')).toMatchObject({ path: '/r/i/text()' });
  });

  it('reads no DTD: a document with a DOCTYPE is compared as text', () => {
    const dtd = '<!DOCTYPE r [<!ENTITY e "x">]><r>&e;</r>';
    expect(compareAnswers(xml(dtd), xml('<r>x</r>'), scope, []).unexplained[0]).toMatchObject({
      target: 'body',
      path: 'line 1',
    });
  });

  it('ignores headers that always differ, compares those that matter', () => {
    const a = xml('<r/>', {
      date: 'Mon',
      server: 'Microsoft-IIS/10.0',
      'x-aspnet-version': '4.0.30319',
      'x-powered-by': 'ASP.NET',
    });
    const b = xml('<r/>', { date: 'Tue', 'x-request-id': 'abc' });
    expect(compareAnswers(a, b, scope, []).outcome).toBe('same_bytes');
    const c = xml('<r/>', { 'cache-control': 'private' });
    expect(compareAnswers(a, c, scope, []).unexplained).toEqual([
      { target: 'header', name: 'cache-control', primary: '(none)', candidate: 'private' },
    ]);
    expect(
      compareAnswers(xml('<r/>', { 'content-type': 'text/xml;charset=UTF-8' }), xml('<r/>'), scope, []).outcome,
    ).toBe('same_bytes');
  });

  it('applies a rule only within its scope', () => {
    const rules = parseIgnoreRules(
      { rules: [{ id: 'cc', header: 'Cache-Control', binding: 'soap11', reason: 'accepted here' }] },
      'test',
    );
    const a = xml('<r/>', { 'cache-control': 'private, max-age=0' });
    const b = xml('<r/>', { 'cache-control': 'private' });
    expect(compareAnswers(a, b, { ...scope, binding: 'soap11' }, rules)).toMatchObject({
      outcome: 'explained',
      rulesUsed: ['cc'],
    });
    expect(compareAnswers(a, b, scope, rules).outcome).toBe('differs');
  });
});
