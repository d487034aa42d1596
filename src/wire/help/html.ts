// Templates for the help pages. Every value put into a template is
// HTML-encoded unless it is itself the output of a template, so a page cannot
// be injected into by a Host header, a path or a query value. The markup is
// also well-formed XML (quoted attributes, void elements closed), which lets
// the tests read the pages with an XML parser.
import { htmlEncode } from '../xml-text';

/** Markup made by `html`: safe to embed as it is. */
export class Html {
  constructor(readonly markup: string) {}

  toString(): string {
    return this.markup;
  }
}

export type HtmlValue = string | number | Html | readonly Html[] | null | undefined | false;

function encode(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.markup;
  if (Array.isArray(value)) return value.map((item: Html) => item.markup).join('');
  return htmlEncode(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let markup = strings[0];
  for (let i = 0; i < values.length; i++) markup += encode(values[i]) + strings[i + 1];
  return new Html(markup);
}
