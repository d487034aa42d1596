// The pieces every console page is built from (docs/architecture.md#the-console):
// a table that becomes cards on a phone, the two pagers, a summary list, a
// filter bar and a confirmation. Each is a pure function of what it shows;
// the pages' views put them together.
import { html, type Html, type HtmlValue } from '../shared/markup';
import { csrfField, type SignedInView, type View } from './view';

export interface Column<T> {
  readonly heading: string;
  readonly cell: (row: T) => HtmlValue;
  /** Figures: aligned to the end of the cell. */
  readonly number?: boolean;
}

/** A column: its heading, the cell a row gives, and whether it holds figures. */
export const column = <T>(heading: string, cell: (row: T) => HtmlValue, number = false): Column<T> => ({
  heading,
  cell,
  number,
});

export interface TableOptions {
  /** Classes besides `stack` (`messages`: the message list's wider cards). */
  readonly className?: string;
  /** What stands instead of a table with no rows; left out: an empty table. */
  readonly empty?: HtmlValue;
}

/**
 * A table that stacks on a phone into a card a row (table.stack in
 * style.ts): each cell carries its column's heading (data-label), shown
 * above its value when the headings row is hidden.
 */
export function stackTable<T>(
  rows: readonly T[],
  columns: readonly Column<NoInfer<T>>[],
  options: TableOptions = {},
): Html {
  if (rows.length === 0 && options.empty !== undefined) return html`<p>${options.empty}</p>`;
  const numeric = (c: Column<T>) => (c.number === true ? html` class="number"` : '');
  return html`<table class="stack${options.className === undefined ? '' : ` ${options.className}`}">
<thead><tr>${columns.map((c) => html`<th scope="col"${numeric(c)}>${c.heading}</th>`)}</tr></thead>
<tbody>${rows.map(
    (row) =>
      html`<tr>
${columns.map((c) => html`<td data-label="${c.heading}"${numeric(c)}>${c.cell(row)}</td>`)}
</tr>`,
  )}</tbody></table>`;
}

/** One row of a summary list; null or false: left out. */
export type SummaryRow = readonly [label: HtmlValue, value: HtmlValue] | null | false;

/** A list of labelled values (a record's fields, a filter restated): two columns, one on a phone. */
export function summaryList(rows: readonly SummaryRow[], id?: string): Html {
  return html`<dl class="summary-list"${id === undefined ? '' : html` id="${id}"`}>
${rows.filter((row) => row !== null && row !== false).map(([label, value]) => html`<div><dt>${label}</dt><dd>${value}</dd></div>`)}
</dl>`;
}

/**
 * The pager of a list paged by number (the student search, the schools):
 * `Page n of m`, and `Previous` and `Next` where there is such a page; none
 * for a single page. `link(n)` is page n's address.
 */
export function numberedPager(view: View, pageNumber: number, pages: number, link: (n: number) => string): Html | '' {
  if (pages <= 1) return '';
  const { t, f } = view;
  const label = t.pageOf(f.number(pageNumber), f.number(pages));
  return html`<nav class="pager" aria-label="${label}"><p>${label}</p>${
    pageNumber > 1 ? html`<a rel="prev" href="${link(pageNumber - 1)}">${t.previous}</a> ` : ''
  }${pageNumber < pages ? html`<a rel="next" href="${link(pageNumber + 1)}">${t.next}</a>` : ''}</nav>`;
}

/**
 * keysetPager for a page the store returned with the cursors of its newer
 * and older neighbours (null: none), each written as a query value by
 * `param`; no pager for no page.
 */
export function pagerOf<Cursor>(
  view: View,
  label: string,
  path: string,
  query: string,
  list: { readonly newer: Cursor | null; readonly older: Cursor | null } | null,
  param: (cursor: Cursor) => string,
): Html | '' {
  if (list === null) return '';
  return keysetPager(
    view,
    label,
    path,
    query,
    list.newer === null ? null : param(list.newer),
    list.older === null ? null : param(list.older),
  );
}

/**
 * The pager of a list paged by its key (Messages, dead letters, the audit
 * trail): `Newest` and `Newer` when there is a newer page, `Older` when there
 * is an older one, each the list's `path` with its filter `query` and the
 * cursor of the row to seek from (`after=` the first row, `before=` the last).
 */
export function keysetPager(
  view: View,
  label: string,
  path: string,
  query: string,
  newer: string | null,
  older: string | null,
): Html | '' {
  if (newer === null && older === null) return '';
  const link = (cursor: string) =>
    `${path}?${[query, cursor].filter((part) => part !== '').join('&')}`.replace(/\?$/, '');
  const { t } = view;
  return html`<nav class="pager" aria-label="${label}">${
    newer === null
      ? ''
      : html`<a href="${link('')}">${t.newest}</a> <a rel="prev" href="${link(`after=${encodeURIComponent(newer)}`)}">${t.newer}</a> `
  }${older === null ? '' : html`<a rel="next" href="${link(`before=${encodeURIComponent(older)}`)}">${t.older}</a>`}</nav>`;
}

/** A field of a filter bar or form: its label, an optional hint, and the control itself. */
export interface Field {
  readonly id: string;
  readonly label: HtmlValue;
  readonly hint?: HtmlValue;
  /** The control, given `aria-describedby` of the hint when there is one. */
  readonly control: (describedBy: Html | '') => Html;
}

/** A labelled field, its hint (`{id}-hint`) described by the control. */
export function field(f: Field): Html {
  const hinted = f.hint === undefined ? '' : html` aria-describedby="${f.id}-hint"`;
  return html`<div class="field"><label for="${f.id}">${f.label}</label>${
    f.hint === undefined ? '' : html`<p class="hint" id="${f.id}-hint">${f.hint}</p>`
  }${f.control(hinted)}</div>`;
}

/** One `<option>`, selected when it is `chosen`. */
export const option = (value: string, label: HtmlValue, chosen: string): Html =>
  html`<option value="${value}"${chosen === value ? html` selected` : ''}>${label}</option>`;

/** ` aria-invalid="true"` on a control whose field has a problem. */
export const invalidWhere =
  (problems: readonly { readonly field?: string }[]) =>
  (id: string): Html | '' =>
    problems.some((p) => p.field === id) ? html` aria-invalid="true"` : '';

/** A list's filters: a GET form to `action` of `fields`, and its submit button. */
export function filterBar(view: View, action: string, fields: readonly Html[]): Html {
  return html`<form class="filters" method="get" action="${action}">
${fields}
<button type="submit">${view.t.filter}</button>
</form>`;
}

export interface Confirmation {
  /** What will happen, asked as a question (and what it acts on, restated). */
  readonly question: HtmlValue;
  /** Where the form posts. */
  readonly action: string;
  readonly yes: string;
  /** Where Cancel goes back to. */
  readonly back: string;
  /** A change that cannot be undone: the warning colour. */
  readonly warning?: boolean;
  /** Hidden fields and choices in the form, before its buttons. */
  readonly fields?: HtmlValue;
}

/** The confirmation step of an action: one question on its own page, Yes and Cancel (a link back). */
export function confirmation(view: SignedInView, c: Confirmation): Html {
  return html`${c.question}
<form method="post" action="${c.action}">${csrfField(view)}${c.fields ?? ''}<button type="submit"${c.warning === true ? html` class="warning"` : ''}>${c.yes}</button> <a href="${c.back}">${view.t.cancel}</a></form>`;
}
