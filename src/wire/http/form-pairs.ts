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

export function readFormPairs(encoded: string): URLSearchParams {
  return new URLSearchParams(encoded.includes('%u') ? withUtf8Escapes(encoded) : encoded);
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
