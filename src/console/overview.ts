// The landing page (docs/console.md#overview): is delivery working right
// now? The outbox per channel, how long the oldest due message has waited,
// sent, retrying and given up over a chosen period, the read-through funnel
// per school and type, the frequent errors, and the delivery workers'
// heartbeats. The figures at the top refresh themselves every few seconds
// through /console/overview.json (overview-live.ts), without a reload.
import { z } from 'zod';
import type { ActivityWidth, ConsoleStore, OutboxChannel, OutboxStatus } from '../store';
import { activityChart, type ChartBucket } from './chart';
import type { ConsoleContext } from './context';
import { html, type Html } from '../shared/markup';
import { instantParam, STATUS_PARAM } from './message-list';
import { funnelTable } from './read-funnel';
import { OVERVIEW_TEXT, RANGES, type Range } from './overview-text';
import { CONSOLE_BASE } from './respond';
import { statusClass } from './status-style';
import { column, stackTable } from './partials';
import type { Page } from './route-table';
import type { View } from './view';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** A worker heard from within this long is working (it beats every 15 s: src/delivery/heartbeat.ts). */
export const WORKER_ALIVE_MS = 45_000;
/** The oldest due message is shown in red past this wait. */
const DUE_ALERT_MS = 5 * MINUTE;
const SHOWN: readonly OutboxStatus[] = ['queued', 'sending', 'sent', 'failed', 'dead'];

interface RangeShape {
  /** One bucket's length, and how many end now. */
  readonly step: number;
  readonly count: number;
  readonly width: ActivityWidth;
  /** A label under every this many buckets. */
  readonly labelEvery: number;
  /** Days of the funnel, today included. */
  readonly days: number;
}

const SHAPES: Readonly<Record<Range, RangeShape>> = {
  '1h': { step: MINUTE, count: 60, width: 16, labelEvery: 10, days: 1 },
  '24h': { step: HOUR, count: 24, width: 13, labelEvery: 4, days: 2 },
  '7d': { step: HOUR, count: 168, width: 13, labelEvery: 24, days: 7 },
  '30d': { step: DAY, count: 30, width: 10, labelEvery: 5, days: 30 },
};

/** The `range` parameter: one of RANGES, else the last hour. */
export const overviewQuery = z.object({ range: z.enum(RANGES).catch('1h') });

/** One figure that refreshes itself: its text, and whether it is shown as a warning. */
export interface LiveFigure {
  readonly text: string;
  /** `given-up`, `retrying` or none: the class the figure's box takes. */
  readonly tone: string;
}

/** What /console/overview.json answers and the page is first drawn with: keyed `push.dead`, `sms.queued`, `due`. */
export interface LiveNumbers {
  readonly figures: Readonly<Record<string, LiveFigure>>;
}

/** The live figures: every status count per channel, and the oldest due message's wait. */
export async function liveNumbers(context: ConsoleContext, view: View): Promise<LiveNumbers> {
  const { t, f } = view;
  const now = context.now().getTime();
  const [stats, oldestDue] = await Promise.all([
    context.stores.admin.outboxStats(),
    context.stores.console.oldestDueAt(),
  ]);
  const figures: Record<string, LiveFigure> = {};
  for (const stat of stats) {
    for (const status of SHOWN) {
      const n = stat.counts[status];
      figures[`${stat.channel}.${status}`] = { text: f.number(n), tone: n > 0 ? statusClass(status) : '' };
    }
  }
  const waited = oldestDue === null ? null : now - Date.parse(oldestDue);
  figures.due =
    waited === null
      ? { text: t.nothingDue, tone: '' }
      : { text: `${t.oldestDue}: ${f.duration(waited)}`, tone: waited > DUE_ALERT_MS ? 'given-up' : '' };
  return { figures };
}

const channelHref = (channel: OutboxChannel, status: OutboxStatus): string =>
  `${CONSOLE_BASE}/messages?channel=${channel}&status=${STATUS_PARAM[status]}`;

/** What one of the console store's reads gives. */
type StoreRead<K extends keyof ConsoleStore> = Awaited<ReturnType<ConsoleStore[K]>>;

export interface OverviewModel {
  readonly range: Range;
  /** The time the page is drawn at. */
  readonly now: number;
  readonly live: LiveNumbers;
  readonly stats: Awaited<ReturnType<ConsoleContext['stores']['admin']['outboxStats']>>;
  readonly activity: StoreRead<'activity'>;
  readonly funnel: StoreRead<'readFunnel'>;
  readonly errors: StoreRead<'frequentErrors'>;
  readonly workers: StoreRead<'listWorkers'>;
}

export async function loadOverview(context: ConsoleContext, view: View, range: Range): Promise<OverviewModel> {
  const shape = SHAPES[range];
  const now = context.now().getTime();
  const store = context.stores.console;
  const start = new Date(now - (shape.count - 1) * shape.step).toISOString().slice(0, shape.width);
  const funnelSince = new Date(now - (shape.days - 1) * DAY).toISOString().slice(0, 10);
  const [live, stats, activity, funnel, errors, workers] = await Promise.all([
    liveNumbers(context, view),
    context.stores.admin.outboxStats(),
    store.activity(start, shape.width),
    store.readFunnel(funnelSince, FUNNEL_ROWS + 1),
    store.frequentErrors(new Date(now - DAY).toISOString(), 10),
    store.listWorkers(),
  ]);
  return { range, now, live, stats, activity, funnel, errors, workers };
}

export function overviewPage(view: View, model: OverviewModel): Page {
  const { t, f } = view;
  const { range, now, live, stats, activity, funnel, errors, workers } = model;
  const words = OVERVIEW_TEXT[view.lang];
  const shape = SHAPES[range];
  const figure = (key: string): LiveFigure => live.figures[key] ?? { text: '', tone: '' };

  const channels = stats.map(
    (stat) => html`<section class="card" aria-labelledby="channel-${stat.channel}">
<h3 id="channel-${stat.channel}">${t.channel[stat.channel]}</h3>
<dl class="stats">${SHOWN.map((status) => {
      const key = `${stat.channel}.${status}`;
      const shown = figure(key);
      return html`<div class="stat ${statusClass(status)}${shown.tone === '' ? '' : ' on'}" data-live-box="${key}"><dt>${t.status[status]}</dt><dd><a href="${channelHref(stat.channel, status)}" data-live="${key}">${shown.text}</a></dd></div>`;
    })}</dl>
</section>`,
  );
  const due = figure('due');

  const byBucket = new Map(activity.map((row) => [row.bucket, row]));
  const buckets: ChartBucket[] = [];
  for (let i = shape.count - 1; i >= 0; i--) {
    const at = new Date(now - i * shape.step).toISOString();
    const key = at.slice(0, shape.width);
    const row = byBucket.get(key);
    // Minutes by their hour and minute, hours by their day and hour, in the operator's zone; days by their date
    // (src/console/times.ts).
    const start =
      shape.width === 16 ? `${key}:00.000Z` : shape.width === 13 ? `${key}:00:00.000Z` : `${key}T00:00:00.000Z`;
    const unit = shape.width === 16 ? 'minute' : shape.width === 13 ? 'hour' : 'day';
    const label = view.times.chartLabel(start, unit);
    // The period's link names it by its UTC instants, days too: exact whatever zone the operator reads in
    // (docs/design.md#a-chart-period-is-a-link).
    const end = new Date(Date.parse(start) + shape.step).toISOString();
    buckets.push({
      label,
      sent: row?.sent ?? 0,
      retrying: row?.retrying ?? 0,
      dead: row?.dead ?? 0,
      total: row?.total ?? 0,
      start: unit === 'day' ? view.times.day(key) : view.times.at(start),
      href: `${CONSOLE_BASE}/messages?from=${instantParam(start)}&to=${instantParam(end)}`,
    });
  }
  // Minute and hour bars are labelled in the operator's zone, day bars by their UTC date: the caption says which.
  const chartCaption =
    shape.width === 10 ? words.chartTitle[range] : words.chartTitle[range].replace('(UTC)', `(${view.times.zone})`);
  const rangeLinks = html`<nav class="ranges" aria-label="${words.rangeNav}"><ul>${RANGES.map(
    (each) =>
      html`<li><a href="${CONSOLE_BASE}/?range=${each}"${each === range ? html` aria-current="page"` : ''}>${words.range[each]}</a></li>`,
  )}</ul></nav>`;

  const errorRows = stackTable(
    errors,
    [
      column(t.colChannel, (e) => t.channel[e.channel]),
      column(
        t.colError,
        (e) =>
          html`<a href="${CONSOLE_BASE}/messages?channel=${e.channel}&amp;error=${encodeURIComponent(e.error)}"><bdi class="code">${e.error}</bdi></a>`,
      ),
      column(t.colCount, (e) => f.number(e.count), true),
    ],
    { empty: t.noErrors },
  );

  const alive = workers.filter((w) => now - Date.parse(w.beatAt) < WORKER_ALIVE_MS);
  const workerRows = html`${alive.length === 0 ? html`<p class="due given-up on" role="alert">${t.noWorkers}</p>` : ''}${
    workers.length === 0
      ? ''
      : stackTable(workers, [
          column(t.colWorker, (w) => html`<bdi class="code">${w.id}</bdi>`),
          column(t.colStarted, (w) => view.times.at(w.startedAt)),
          column(t.colLastHeard, (w) => view.times.relative(w.beatAt, now)),
          column(t.colState, (w) => {
            const ok = now - Date.parse(w.beatAt) < WORKER_ALIVE_MS;
            return html`<span class="${ok ? 'ok' : 'alert'}">${ok ? t.workerAlive : t.workerSilent}</span>`;
          }),
        ])
  }`;

  const main: Html = html`<h2>${t.deliveryNow}</h2>
<div class="cards">${channels}</div>
<p class="due${due.tone === '' ? '' : ` ${due.tone} on`}" data-live="due" data-live-box="due">${due.text}</p>
<p class="muted">${words.live}</p>
<h2>${t.workersTitle}</h2>
${workerRows}
<h2 id="activity">${words.chart.sent} · ${words.chart.retrying} · ${words.chart.dead}</h2>
${rangeLinks}
${activityChart(view, words.chart, chartCaption, buckets, shape.labelEvery)}
<h2 id="funnel">${words.funnelTitle}</h2>
<p class="hint">${words.funnelHint}</p>
${funnelTable(view, funnel.slice(0, FUNNEL_ROWS), funnel.length > FUNNEL_ROWS)}
<h2>${t.errorsTitle}</h2>
${errorRows}
<script src="${CONSOLE_BASE}/overview.js" defer></script>`;
  return { title: t.overviewTitle, main, current: 'overview' };
}

/** The funnel's rows on the page; more are left to a shorter period. */
const FUNNEL_ROWS = 100;
