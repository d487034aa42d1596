// The compare report's HTML page: every value that came from a server, a
// request or an ignore file is escaped, so a hostile answer cannot script
// the page an operator opens.
import { htmlReport } from '../../src/legacy-kit/compare/report';
import type { CompareEntry, CompareResult } from '../../src/legacy-kit/compare/run-compare';

const HOSTILE = `<script>alert("x")</script> & 'quoted'`;
const ESCAPED = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39;';

function answer(body: string): CompareEntry['primary'] {
  return {
    status: 200,
    headers: { 'content-type': 'text/xml; charset=utf-8', 'x-note': HOSTILE },
    body: Buffer.from(body),
  };
}

function differing(): CompareEntry {
  const difference = { target: 'body', path: `/a/${HOSTILE}`, what: 'text' } as const;
  return {
    planned: {
      endpoint: 'PushNotificationMobile',
      operation: 'GetTokenDevice',
      binding: 'http_get',
      case: HOSTILE,
      request: {
        method: 'GET',
        path: `/PushNotificationMobile.asmx/GetTokenDevice?id=${HOSTILE}`,
        headers: {},
        body: '',
      },
    },
    outcome: 'differs',
    comparison: {
      outcome: 'differs',
      differences: [difference],
      unexplained: [difference],
      rulesUsed: [],
      kind: 'wire',
    },
    noise: [],
    primary: answer(`same line\n<string>${HOSTILE}</string>`),
    candidate: answer('same line\n<string>other</string>'),
    error: null,
  };
}

function result(): CompareResult {
  return {
    servers: { primary: `http://legacy/${HOSTILE}`, candidate: 'http://candidate' },
    entries: [differing()],
    rules: [
      {
        id: HOSTILE,
        reason: HOSTILE,
        operations: null,
        bindings: null,
        cases: null,
        status: false,
        headers: [],
        paths: [],
        body: true,
      },
    ],
    ruleUses: new Map([[HOSTILE, 3]]),
  };
}

describe('the compare report page', () => {
  it('escapes every value from the servers, the requests and the rules', () => {
    const page = htmlReport(result());
    expect(page).not.toContain('<script>');
    // The server, the case, the request, the difference, a header, the body line, the rule's id and reason.
    expect(page.split(ESCAPED).length - 1).toBeGreaterThanOrEqual(9);
  });

  it('marks the lines of an answer that differ from the other side', () => {
    const page = htmlReport(result());
    expect(page).toContain(`<mark>&lt;string&gt;${ESCAPED}&lt;/string&gt;</mark>`);
    expect(page).toContain('\nsame line\n');
    expect(page).not.toContain('<mark>same line</mark>');
  });

  it('counts each outcome per operation and binding, the differing cell marked', () => {
    const page = htmlReport(result());
    expect(page).toContain(
      '<tr><td>GetTokenDevice</td><td>http_get</td><td class="">0</td><td class="">0</td><td class="">0</td><td class="">0</td><td class="differs">1</td><td class="">0</td></tr>',
    );
    expect(page).toContain('<h2>Unexplained differences (1)</h2>');
  });
});
