// Text escaping as .NET's XmlTextWriter does it: `&`, `<` and `>` in text,
// nothing else; non-ASCII goes out as raw UTF-8. Characters XML 1.0 cannot
// carry at all become U+FFFD, so that no answer is ever ill-formed.

// eslint-disable-next-line no-control-regex
const TEXT_SPECIAL = /[&<>\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
// eslint-disable-next-line no-control-regex
const TEXT_SPECIAL_ALL = /[&<>\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

function textEntity(ch: string): string {
  switch (ch) {
    case '&':
      return '&amp;';
    case '<':
      return '&lt;';
    case '>':
      return '&gt;';
    default:
      return '\uFFFD';
  }
}

export function escapeText(value: string): string {
  return TEXT_SPECIAL.test(value) ? value.replace(TEXT_SPECIAL_ALL, textEntity) : value;
}

export function escapeAttribute(value: string): string {
  return escapeText(value).replace(/"/g, '&quot;');
}

/** ASP.NET's HttpUtility.HtmlEncode, used for the plain-text error bodies of the GET/POST bindings. */
export function htmlEncode(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => HTML_ENTITIES[ch] ?? ch);
}

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
