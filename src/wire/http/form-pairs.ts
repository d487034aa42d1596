// Query strings and form bodies of the GET/POST bindings, read as ASP.NET's
// HttpUtility.UrlDecode reads them: `+` and UTF-8 %XX as usual, and also the
// %uXXXX escape (one UTF-16 code unit) that .NET's and Mono's HttpGet/HttpPost
// proxies write for every non-ASCII character (System.Web.Services'
// UrlEncoder.UrlEscapeStringUnicode). A malformed escape stays as it is.

const UNICODE_ESCAPES = /(?:%u[0-9a-fA-F]{4})+/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function readFormPairs(encoded: string): URLSearchParams {
  return new URLSearchParams(encoded.includes('%u') ? encoded.replace(UNICODE_ESCAPES, asUtf8Escapes) : encoded);
}

/** A run of %uXXXX as the UTF-8 %XX escapes URLSearchParams reads; a run keeps surrogate pairs together. */
function asUtf8Escapes(run: string): string {
  const units = run
    .split('%u')
    .slice(1)
    .map((hex) => parseInt(hex, 16));
  return encodeURIComponent(String.fromCharCode(...units).replace(LONE_SURROGATE, '\uFFFD'));
}
