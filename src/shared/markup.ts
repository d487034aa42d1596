// Every escape the service writes, one per language, and the tagged template
// that all its HTML is made with; nothing else in src/ escapes by hand
// (test/unit/one-escape.test.ts fails on a new local escape).
//
// XML text and attributes are escaped as .NET's XmlTextWriter does it, the
// wire's answers byte for byte (docs/design.md#wire-rules): `&`, `<` and `>`
// in text, nothing else; in attributes `"` too; non-ASCII goes out as raw
// UTF-8. Characters XML 1.0 cannot carry at all become U+FFFD, so that no
// document is ever ill-formed.

import { hasBidiControl, isolated } from './bidi';

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

/** XML character data. */
export function escapeText(value: string): string {
  return TEXT_SPECIAL.test(value) ? value.replace(TEXT_SPECIAL_ALL, textEntity) : value;
}

/** An XML attribute's value, between double quotes. */
export function escapeAttribute(value: string): string {
  return escapeText(value).replace(/"/g, '&quot;');
}

const HTML_ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * HTML text or an attribute's value, in either quotes: ASP.NET's
 * HttpUtility.HtmlEncode, which the GET/POST bindings' plain-text error
 * bodies copy.
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => HTML_ENTITIES[ch] ?? ch);
}

// HTML written by tagged templates: every interpolated value is escaped
// unless it is already Html (made by this template, or by `raw` for markup
// the program itself wrote), so a name, an error text, a Host header or a
// token from the store can never become markup (test/console/service.test.ts,
// test/wire/help-pages.test.ts, test/legacy-kit/report.test.ts).

/** Markup made by `html` or `raw`: safe to embed as it is. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type HtmlValue = Html | string | number | null | undefined | false | readonly HtmlValue[];

/**
 * A value as markup. In text (not inside a tag), text holding a bidirectional
 * control is isolated, so that a name with a U+202E cannot reverse the title,
 * the heading or the row around it (docs/console.md#text-direction); inside a
 * tag (an attribute, a form field's value) it is left as it is, since it is
 * sent back as data.
 */
function render(value: HtmlValue, inText: boolean): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map((item) => render(item, inText)).join('');
  const text = String(value);
  return inText && hasBidiControl(text) ? isolated(escapeHtml(text)) : escapeHtml(text);
}

/** Whether markup ending with `out` is in text, not inside a tag: escaped values and Html hold no unbalanced `<`. */
function inText(out: string): boolean {
  return out.lastIndexOf('<') <= out.lastIndexOf('>');
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i], inText(out)) + (strings[i + 1] ?? '');
  return new Html(out);
}

/** Markup the program wrote itself (never data). */
export const raw = (text: string): Html => new Html(text);

/**
 * Free text (a name, a type, a reason, a file name) as markup: in a <bdi>,
 * which takes its direction from its own first strong letter and cannot
 * change the direction of what is around it, so that a Latin name reads
 * whole in an Arabic heading and an Arabic one in an English table
 * (docs/console.md#text-direction). Where no markup can go (a <title>), the
 * same isolation is `isolated` of src/shared/bidi.ts.
 */
export function bdi(value: HtmlValue, className?: string): Html {
  return className === undefined ? html`<bdi>${value}</bdi>` : html`<bdi class="${className}">${value}</bdi>`;
}
