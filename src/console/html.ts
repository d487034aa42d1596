// HTML written by tagged templates: every interpolated value is escaped
// unless it is already Html (made by this template or by `raw` for text the
// console itself wrote), so a name, an error text or a token from the store
// can never become markup (test/console/service.test.ts, test/console/students.test.ts).
import { hasBidiControl, isolated } from '../shared/bidi';

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type HtmlValue = Html | string | number | null | undefined | false | readonly HtmlValue[];

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch);
}

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

/** Markup the console wrote itself (never data). */
export const raw = (text: string): Html => new Html(text);
