// The overview's read-through funnel (docs/console.md#overview): per day,
// school and type, push notifications queued, accepted by the provider and
// read in the app, as a table (a stack of cards on a phone) with a simple
// bar of the three beside each row. The store's side is
// src/store/message-history/read-funnel.ts.
import type { FunnelRow } from '../store';
import { bdi, html, type Html } from '../shared/markup';
import { OVERVIEW_TEXT } from './overview-text';
import { column, stackTable } from './partials';
import { CONSOLE_BASE } from './respond';
import { typeName } from './values';
import type { View } from './view';

const BAR_WIDTH = 120;
const BAR_HEIGHT = 8;

/** Three bars, queued (whole), accepted and read, their lengths as shares of queued. */
function funnelBar(row: FunnelRow): Html {
  const part = (n: number) => (row.queued === 0 ? 0 : (n / row.queued) * BAR_WIDTH).toFixed(1);
  return html`<svg class="funnel-bar" viewBox="0 0 ${BAR_WIDTH} ${BAR_HEIGHT * 3 + 4}" width="${BAR_WIDTH}" height="${BAR_HEIGHT * 3 + 4}" aria-hidden="true" focusable="false"><rect x="0" y="0" width="${BAR_WIDTH}" height="${BAR_HEIGHT}" class="queued"/><rect x="0" y="${BAR_HEIGHT + 2}" width="${part(row.accepted)}" height="${BAR_HEIGHT}" class="sent"/><rect x="0" y="${2 * BAR_HEIGHT + 4}" width="${part(row.read)}" height="${BAR_HEIGHT}" class="read"/></svg>`;
}

export function funnelTable(view: View, rows: readonly FunnelRow[], more: boolean): Html {
  const { f } = view;
  const words = OVERVIEW_TEXT[view.lang];
  if (rows.length === 0) return html`<p>${words.funnelEmpty}</p>`;
  const percent = new Intl.NumberFormat(view.t.locale, { style: 'percent', maximumFractionDigits: 0 });
  // The share is isolated from its count, the space outside: Arabic's percent holds marks that once made the
  // whole " (67%)" a left-to-right run glued to the count's far side, "(67%)2" (test/browser/console-flows.test.ts).
  const share = (n: number, of: number) =>
    of === 0 ? '' : html` <bdi class="share">(${percent.format(n / of)})</bdi>`;
  const messages = (row: FunnelRow) =>
    `${CONSOLE_BASE}/messages?channel=push&type=${encodeURIComponent(row.type)}&from=${row.day}&to=${row.day}`;
  return html`${stackTable(
    rows,
    [
      column(words.colDay, (row) => row.day),
      column(words.colSchool, (row) =>
        row.school === null
          ? html`<span class="muted">${words.noSchool}</span>`
          : html`<a href="${`${messages(row)}&school=${encodeURIComponent(row.school)}`}">${bdi(row.school)}</a>`,
      ),
      column(words.colType, (row) => bdi(typeName(view, row.type))),
      column(words.colQueued, (row) => f.number(row.queued), true),
      column(words.colAccepted, (row) => html`${f.number(row.accepted)}${share(row.accepted, row.queued)}`, true),
      column(words.colRead, (row) => html`${f.number(row.read)}${share(row.read, row.queued)}`, true),
      column(words.colShare, funnelBar),
    ],
    { className: 'funnel' },
  )}${more ? html`<p class="muted">${words.funnelMore(f.number(rows.length))}</p>` : ''}`;
}
