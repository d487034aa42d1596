// Free text in a page is isolated by bdi() (src/shared/markup.ts,
// docs/console.md#text-direction): escaped like any value, in a <bdi>, and a
// bidirectional control inside it closed within it.
import { bdi, html } from '../../src/shared/markup';

test('puts free text in a <bdi>, escaped, its controls closed inside it', () => {
  expect(html`<h1>الطالب ${bdi(`O'Brien & <Sons> "Q`)}</h1>`.text).toBe(
    '<h1>الطالب <bdi>O&#39;Brien &amp; &lt;Sons&gt; &quot;Q</bdi></h1>',
  );
  expect(bdi('Ahmad \u202Egnp.exe', 'code').text).toBe('<bdi class="code">\u2068Ahmad \u202Egnp.exe\u2069</bdi>');
  expect(bdi('"><script>', '"x').text).toBe('<bdi class="&quot;x">&quot;&gt;&lt;script&gt;</bdi>');
});
