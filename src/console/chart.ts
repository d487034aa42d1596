// The overview's chart, drawn by the server as SVG (no script, no external
// asset): sent and failed messages per bucket as paired bars, with a
// labelled scale. Time runs left to right in both languages, as on a clock
// face; the text around it follows the page's direction.
import { html, type Html } from '../shared/markup';
import type { View } from './view';

export interface ChartBucket {
  /** Shown under the bar now and then (every `labelEvery` buckets). */
  readonly label: string;
  readonly sent: number;
  readonly failed: number;
}

const WIDTH = 720;
const HEIGHT = 220;
const LEFT = 60;
const BOTTOM = 28;
const TOP = 10;

export function activityChart(view: View, title: string, buckets: readonly ChartBucket[], labelEvery: number): Html {
  const { t, f } = view;
  const max = Math.max(1, ...buckets.map((b) => Math.max(b.sent, b.failed)));
  const scale = niceCeiling(max);
  const plotWidth = WIDTH - LEFT - 8;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / Math.max(1, buckets.length);
  const bar = Math.max(1, slot / 2 - 0.5);
  const y = (value: number) => TOP + plotHeight - (value / scale) * plotHeight;
  // Whole messages only: a half-way line where it is a whole number.
  const ticks = scale % 2 === 0 ? [0, scale / 2, scale] : [0, scale];
  const totalSent = buckets.reduce((sum, b) => sum + b.sent, 0);
  const totalFailed = buckets.reduce((sum, b) => sum + b.failed, 0);
  const id = `chart-${title.length}-${buckets.length}`;
  return html`<figure class="chart">
<figcaption id="${id}">${title}</figcaption>
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id} ${id}-summary">
${ticks.map(
  (tick) =>
    html`<line x1="${LEFT}" x2="${WIDTH - 8}" y1="${y(tick).toFixed(1)}" y2="${y(tick).toFixed(1)}" class="grid"/><text x="${LEFT - 6}" y="${(y(tick) + 4).toFixed(1)}" text-anchor="end" class="axis">${f.number(tick)}</text>`,
)}
${buckets.map((b, i) => {
  const x = LEFT + i * slot;
  return html`<g><title>${b.label}: ${t.sent} ${f.number(b.sent)}, ${t.failed} ${f.number(b.failed)}</title>${
    b.sent > 0
      ? html`<rect x="${x.toFixed(1)}" y="${y(b.sent).toFixed(1)}" width="${bar.toFixed(1)}" height="${(TOP + plotHeight - y(b.sent)).toFixed(1)}" class="sent"/>`
      : ''
  }${
    b.failed > 0
      ? html`<rect x="${(x + bar).toFixed(1)}" y="${y(b.failed).toFixed(1)}" width="${bar.toFixed(1)}" height="${(TOP + plotHeight - y(b.failed)).toFixed(1)}" class="failed"/>`
      : ''
  }${i % labelEvery === 0 ? html`<text x="${x.toFixed(1)}" y="${HEIGHT - 8}" class="${(i / labelEvery) % 2 === 1 ? 'axis odd' : 'axis'}">${b.label}</text>` : ''}</g>`;
})}
</svg>
<p class="legend"><span class="key sent"></span>${t.sent} <span class="key failed"></span>${t.failed}</p>
<p id="${id}-summary" class="summary">${t.chartSummary(f.number(totalSent), f.number(totalFailed))}</p>
</figure>`;
}

/** 1, 2 or 5 times a power of ten, at least `value`: round numbers on the scale. */
function niceCeiling(value: number): number {
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}
