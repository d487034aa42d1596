// The landing page (docs/console.md#overview): is delivery working right
// now? The outbox per channel, how long the oldest due message has waited,
// sent and failed over the last hour and week, the frequent errors, and the
// delivery workers' heartbeats.
import type { Response } from 'express';
import type { OutboxStatus } from '../store';
import { activityChart, type ChartBucket } from './chart';
import type { ConsoleContext } from './context';
import { html } from '../shared/markup';
import { STATUS_PARAM } from './message-list';
import { CONSOLE_BASE, sendPage } from './respond';
import { page, type View } from './view';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** A worker heard from within this long is working (it beats every 15 s: src/delivery/heartbeat.ts). */
export const WORKER_ALIVE_MS = 45_000;
const SHOWN: readonly OutboxStatus[] = ['queued', 'sending', 'sent', 'failed', 'dead'];

export async function showOverview(context: ConsoleContext, view: View, res: Response): Promise<void> {
  const { t, f } = view;
  const now = context.now().getTime();
  const store = context.stores.console;
  const [stats, oldestDue, minutes, hours, errors, workers] = await Promise.all([
    context.stores.admin.outboxStats(),
    store.oldestDueAt(),
    store.activity(new Date(now - HOUR + MINUTE).toISOString().slice(0, 16), 16),
    store.activity(new Date(now - 7 * 24 * HOUR + HOUR).toISOString().slice(0, 13), 13),
    store.frequentErrors(new Date(now - 24 * HOUR).toISOString(), 10),
    store.listWorkers(),
  ]);

  const channels = stats.map(
    (stat) => html`<section class="card" aria-labelledby="channel-${stat.channel}">
<h3 id="channel-${stat.channel}">${t.channel[stat.channel]}</h3>
<dl class="stats">${SHOWN.map(
      (status) =>
        html`<div class="${status === 'dead' && stat.counts.dead > 0 ? 'stat alert' : 'stat'}"><dt>${t.status[status]}</dt><dd><a href="${CONSOLE_BASE}/messages?channel=${stat.channel}&amp;status=${STATUS_PARAM[status]}">${f.number(stat.counts[status])}</a></dd></div>`,
    )}</dl>
</section>`,
  );
  const waited = oldestDue === null ? null : now - Date.parse(oldestDue);
  const due =
    waited === null
      ? html`<p class="due">${t.nothingDue}</p>`
      : html`<p class="${waited > 5 * MINUTE ? 'due alert' : 'due'}">${t.oldestDue}: <strong>${f.duration(waited)}</strong></p>`;

  const series = (
    rows: readonly { bucket: string; sent: number; failed: number }[],
    step: number,
    count: number,
    width: number,
  ) => {
    const byBucket = new Map(rows.map((row) => [row.bucket, row]));
    const buckets: ChartBucket[] = [];
    for (let i = count - 1; i >= 0; i--) {
      const at = new Date(now - i * step).toISOString();
      const key = at.slice(0, width);
      const row = byBucket.get(key);
      // Minutes by their hour and minute, hours by their day and hour, in the operator's zone (src/console/times.ts).
      const label =
        width === 16
          ? view.times.chartLabel(`${key}:00.000Z`, 'minute')
          : view.times.chartLabel(`${key}:00:00.000Z`, 'hour');
      buckets.push({ label, sent: row?.sent ?? 0, failed: row?.failed ?? 0 });
    }
    return buckets;
  };

  const errorRows =
    errors.length === 0
      ? html`<p>${t.noErrors}</p>`
      : html`<table class="stack">
<thead><tr><th scope="col">${t.colChannel}</th><th scope="col">${t.colError}</th><th scope="col" class="number">${t.colCount}</th></tr></thead>
<tbody>${errors.map(
          (e) =>
            html`<tr><td data-label="${t.colChannel}">${t.channel[e.channel]}</td><td data-label="${t.colError}"><a href="${CONSOLE_BASE}/messages?channel=${e.channel}&amp;error=${encodeURIComponent(e.error)}"><bdi class="code">${e.error}</bdi></a></td><td data-label="${t.colCount}" class="number">${f.number(e.count)}</td></tr>`,
        )}</tbody></table>`;

  const alive = workers.filter((w) => now - Date.parse(w.beatAt) < WORKER_ALIVE_MS);
  const workerRows = html`${alive.length === 0 ? html`<p class="due alert" role="alert">${t.noWorkers}</p>` : ''}${
    workers.length === 0
      ? ''
      : html`<table class="stack">
<thead><tr><th scope="col">${t.colWorker}</th><th scope="col">${t.colStarted}</th><th scope="col">${t.colLastHeard}</th><th scope="col">${t.colState}</th></tr></thead>
<tbody>${workers.map((w) => {
          const ok = now - Date.parse(w.beatAt) < WORKER_ALIVE_MS;
          return html`<tr><td data-label="${t.colWorker}"><bdi class="code">${w.id}</bdi></td><td data-label="${t.colStarted}">${view.times.at(w.startedAt)}</td><td data-label="${t.colLastHeard}">${view.times.relative(w.beatAt, now)}</td><td data-label="${t.colState}"><span class="${ok ? 'ok' : 'alert'}">${ok ? t.workerAlive : t.workerSilent}</span></td></tr>`;
        })}</tbody></table>`
  }`;

  sendPage(
    res,
    200,
    page(
      view,
      t.overviewTitle,
      html`<h2>${t.deliveryNow}</h2>
<div class="cards">${channels}</div>
${due}
<h2>${t.workersTitle}</h2>
${workerRows}
${activityChart(view, t.chartHour, series(minutes, MINUTE, 60, 16), 10)}
${activityChart(view, t.chartWeek, series(hours, HOUR, 168, 13), 24)}
<h2>${t.errorsTitle}</h2>
${errorRows}`,
      { current: 'overview' },
    ),
  );
}
