// Query strings and form bodies of the GET/POST bindings, read as ASP.NET's
// HttpUtility.UrlDecode reads them: `+` and UTF-8 %XX as usual, and also the
// %uXXXX escape (one UTF-16 code unit) that .NET's and Mono's HttpGet/HttpPost
// proxies write for every non-ASCII character (System.Web.Services'
// UrlEncoder.UrlEscapeStringUnicode). A malformed escape stays as it is.
//
// A run of escapes may be as long as the body (BODY_LIMIT): it is decoded in a
// loop, never by spreading it into a call's arguments, which overflows the
// stack past about 125,000 (test/wire/http-rules.test.ts).

const HEX4 = /^[0-9a-fA-F]{4}$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** `%uXXXX`: six characters an escape. */
const ESCAPE_LENGTH = 6;

/** One name and its value, decoded, in the order sent. */
export type FormPair = readonly [name: string, value: string];

/** What only URLSearchParams' decoding reads as URLSearchParams does: an escape, or a surrogate it makes well-formed. */
const NEEDS_DECODING = /[%\uD800-\uDFFF]/;
const PLUS = /\+/g;

/**
 * The pairs as URLSearchParams reads them. Most queries and forms hold no
 * escape (`id=dev-bench`): those are split here, with what URLSearchParams
 * does to them (a leading `?` dropped, empty pieces skipped, `+` a space, a
 * piece without `=` an empty value), at a fraction of its cost of building
 * and iterating its list (docs/benchmark.md#fifth-round-http-get-and-post;
 * test/unit/form-pairs.test.ts holds the two to the same answers).
 */
export function readFormPairs(encoded: string): FormPair[] {
  if (NEEDS_DECODING.test(encoded))
    return [...new URLSearchParams(encoded.includes('%u') ? withUtf8Escapes(encoded) : encoded)];
  const text = encoded.includes('+') ? encoded.replace(PLUS, ' ') : encoded;
  const pairs: FormPair[] = [];
  let start = text.startsWith('?') ? 1 : 0;
  while (start < text.length) {
    let end = text.indexOf('&', start);
    if (end < 0) end = text.length;
    if (end > start) {
      const eq = text.indexOf('=', start);
      pairs.push(eq < 0 || eq > end ? [text.slice(start, end), ''] : [text.slice(start, eq), text.slice(eq + 1, end)]);
    }
    start = end + 1;
  }
  return pairs;
}

/**
 * Every run of %uXXXX as the UTF-8 %XX escapes URLSearchParams reads; a run
 * keeps surrogate pairs together. A scan rather than a regular expression: a
 * quantified group over a run of millions of escapes exhausts the regular
 * expression engine's stack.
 */
function withUtf8Escapes(encoded: string): string {
  const parts: string[] = [];
  let copied = 0;
  let at = encoded.indexOf('%u');
  while (at >= 0) {
    let end = at;
    let units = '';
    while (isUnicodeEscape(encoded, end)) {
      units += String.fromCharCode(parseInt(encoded.slice(end + 2, end + ESCAPE_LENGTH), 16));
      end += ESCAPE_LENGTH;
    }
    if (end > at) {
      parts.push(encoded.slice(copied, at), encodeURIComponent(units.replace(LONE_SURROGATE, '\uFFFD')));
      copied = end;
    }
    at = encoded.indexOf('%u', Math.max(end, at + 1));
  }
  parts.push(encoded.slice(copied));
  return parts.join('');
}

function isUnicodeEscape(text: string, at: number): boolean {
  return text.startsWith('%u', at) && HEX4.test(text.slice(at + 2, at + ESCAPE_LENGTH));
}
