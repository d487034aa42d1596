// The overview's chart, drawn by the server as SVG (no external asset):
// of the messages queued per bucket, the sent, retrying and given up as
// grouped bars, with a labelled scale, each bucket's figures in the title of
// its link (shown on hover).
// Time runs left to right in both languages, as on a clock face; the text
// around it follows the page's direction. Labels near either end are
// anchored inwards, so that none is clipped at the edge, on a phone either.
// Each period leads to Messages with its times (docs/design.md#a-chart-period-is-a-link):
// a mouse by its bar (a link out of the tab order), a keyboard, a screen
// reader or a finger by the table of periods under the chart, whose rows are
// tap targets where the bars are a few pixels wide.
import { html, type Html } from '../shared/markup';
import { column, stackTable } from './partials';
import type { View } from './view';

export interface ChartBucket {
  /** Shown under the bar now and then (every `labelEvery` buckets), and in its title. */
  readonly label: string;
  readonly sent: number;
  readonly retrying: number;
  readonly dead: number;
  /** Every message queued in the period, refused calls included: what its link lists. */
  readonly total: number;
  /** The period's start, as a `<time>` for the table of periods. */
  readonly start: Html | string;
  /** Messages with the period's times. */
  readonly href: string;
}

/** The chart's legend and hover words, in the page's language. */
export interface ChartWords {
  readonly sent: string;
  readonly retrying: string;
  readonly dead: string;
  /** Between the figures of a bar's title: the language's comma. */
  readonly comma: string;
  summary(sent: string, retrying: string, dead: string): string;
  /** The table of periods' disclosure: how many periods have messages (plural forms). */
  periods(n: number, formatted: string): string;
  readonly colPeriod: string;
  readonly colMessages: string;
  readonly colLink: string;
  readonly showMessages: string;
}

const WIDTH = 720;
const HEIGHT = 220;
const LEFT = 60;
const RIGHT = 8;
const BOTTOM = 28;
// Room above the top line for its label at the phone size (22 units, style.ts), which was cut at 10.
const TOP = 18;
const SERIES = ['sent', 'retrying', 'dead'] as const;

export function activityChart(
  view: View,
  words: ChartWords,
  title: string,
  buckets: readonly ChartBucket[],
  labelEvery: number,
): Html {
  const { f } = view;
  const max = Math.max(1, ...buckets.map((b) => Math.max(b.sent, b.retrying, b.dead)));
  const scale = niceCeiling(max);
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / Math.max(1, buckets.length);
  const bar = Math.max(0.5, (slot - 1) / SERIES.length);
  const y = (value: number) => TOP + plotHeight - (value / scale) * plotHeight;
  // Whole messages only: a half-way line where it is a whole number.
  const ticks = scale % 2 === 0 ? [0, scale / 2, scale] : [0, scale];
  const total = (key: (typeof SERIES)[number]) => buckets.reduce((sum, b) => sum + b[key], 0);
  const id = `chart-${buckets.length}`;
  const labelled = buckets.length <= 1 ? 1 : buckets.length - 1;
  return html`<figure class="chart">
<figcaption id="${id}">${title}</figcaption>
<div class="plot">
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id} ${id}-summary">
${ticks.map(
  (tick) =>
    html`<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y(tick).toFixed(1)}" y2="${y(tick).toFixed(1)}" class="grid"/><text x="${LEFT - 6}" y="${(y(tick) + 4).toFixed(1)}" text-anchor="end" class="axis">${f.number(tick)}</text>`,
)}
${buckets.map((b, i) => {
  const x = LEFT + i * slot;
  // The first label starts at its bar, the last ends at the plot's edge, the others are centred on their bar.
  const share = i / labelled;
  const anchor = share < 0.1 ? 'start' : share > 0.85 ? 'end' : 'middle';
  const labelX = anchor === 'start' ? x : anchor === 'end' ? Math.min(WIDTH - RIGHT, x + slot) : x + slot / 2;
  // The SVG runs left to right: an Arabic label ("27 نوفمبر، 06") is drawn isolated, so that it reads in its
  // own direction, its hour not between its day and its month (test/browser/console-flows.test.ts).
  const label = html`\u2068${b.label}\u2069`;
  return html`<g>${SERIES.map((key, k) =>
    b[key] > 0
      ? html`<rect x="${(x + k * bar).toFixed(1)}" y="${y(b[key]).toFixed(1)}" width="${bar.toFixed(1)}" height="${(TOP + plotHeight - y(b[key])).toFixed(1)}" class="${key}"/>`
      : '',
  )}${i % labelEvery === 0 ? html`<text x="${labelX.toFixed(1)}" y="${HEIGHT - 8}" text-anchor="${anchor}" class="${(i / labelEvery) % 2 === 1 ? 'axis odd' : 'axis'}">${label}</text>` : ''}</g>`;
})}
</svg>
${barLinks(view, words, buckets, slot, plotHeight)}
</div>
<p class="legend"><span class="key sent"></span>${words.sent} <span class="key retrying"></span>${words.retrying} <span class="key dead"></span>${words.dead}</p>
<p id="${id}-summary" class="summary">${words.summary(f.number(total('sent')), f.number(total('retrying')), f.number(total('dead')))}</p>
${periodTable(view, words, buckets)}
</figure>`;
}

/**
 * Over the drawing, the same size: each period's slot, its whole height, with the period's figures in its
 * title (shown on hover), a link where the period has messages. Hidden from assistive technology and out of
 * the tab order, since the image below reads as one and may not hold links: the table of periods is their
 * way (docs/design.md#a-chart-period-is-a-link).
 */
function barLinks(view: View, words: ChartWords, buckets: readonly ChartBucket[], slot: number, height: number): Html {
  const { f } = view;
  return html`<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" class="bar-links" aria-hidden="true" focusable="false">${buckets.map(
    (b, i) => {
      const inner = html`<title>${b.label}: ${words.sent} ${f.number(b.sent)}${words.comma}${words.retrying} ${f.number(b.retrying)}${words.comma}${words.dead} ${f.number(b.dead)}</title><rect x="${(LEFT + i * slot).toFixed(1)}" y="${TOP}" width="${slot.toFixed(1)}" height="${height}"/>`;
      // A period with no message leads nowhere: its figures on hover only, as in the table, which leaves it out.
      return b.total > 0 ? html`<a href="${b.href}" tabindex="-1">${inner}</a>` : html`<g>${inner}</g>`;
    },
  )}</svg>`;
}

/** The periods that have messages, newest first, each with its count and its link: the bars' equivalent. */
function periodTable(view: View, words: ChartWords, buckets: readonly ChartBucket[]): Html | '' {
  const { f } = view;
  const rows = buckets.filter((b) => b.total > 0).reverse();
  if (rows.length === 0) return '';
  return html`<details class="periods"><summary>${words.periods(rows.length, f.number(rows.length))}</summary>
${stackTable(
  rows,
  [
    column(words.colPeriod, (b) => b.start),
    column(words.colMessages, (b) => f.number(b.total), true),
    column(
      words.colLink,
      (b) => html`<a href="${b.href}">${words.showMessages}<span class="visually-hidden"> (${b.label})</span></a>`,
    ),
  ],
  { className: 'periods' },
)}
</details>`;
}

/** 1, 2 or 5 times a power of ten, at least `value`: round numbers on the scale. */
function niceCeiling(value: number): number {
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}
