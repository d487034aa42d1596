// The overview's live figures (docs/console.md#overview): a script served by
// the console itself (the CSP allows scripts from the service only, and no
// inline script) fetches /console/overview.json every few seconds while the
// tab is shown, and writes its figures into the elements marked
// `data-live`; it stops while the tab is hidden and refreshes at once when
// it is shown again. Without the script the page is complete as drawn.
import type { Request, Response } from 'express';
import type { ConsoleContext } from './context';
import { liveNumbers } from './overview';
import { etagOf, sendAsset } from './respond';
import type { View } from './view';

/** How often the figures are asked for, in milliseconds. */
export const LIVE_INTERVAL_MS = 5_000;

// Plain ES2017 a browser runs as it is: no build step, no dependency.
export const OVERVIEW_SCRIPT = `'use strict';
(function () {
  var URL = '/console/overview.json';
  var timer = null;
  function apply(data) {
    var figures = data && data.figures;
    if (!figures) return;
    document.querySelectorAll('[data-live]').forEach(function (el) {
      var figure = figures[el.getAttribute('data-live')];
      if (figure && el.textContent !== figure.text) el.textContent = figure.text;
    });
    document.querySelectorAll('[data-live-box]').forEach(function (el) {
      var figure = figures[el.getAttribute('data-live-box')];
      if (figure) el.classList.toggle('on', figure.tone !== '');
    });
  }
  function refresh() {
    fetch(URL, { credentials: 'same-origin', cache: 'no-store', redirect: 'manual', headers: { Accept: 'application/json' } })
      .then(function (res) {
        // Too many at once for this account (other tabs): the next turn asks again.
        if (res.status === 429) return null;
        // Signed out or ended: stop asking; the next navigation goes to the sign-in page.
        if (!res.ok) { stop(); return null; }
        return res.json();
      })
      .then(function (data) { if (data) apply(data); })
      .catch(function () { /* the next turn tries again */ });
  }
  function start() { if (timer === null) timer = setInterval(refresh, ${LIVE_INTERVAL_MS}); }
  function stop() { if (timer !== null) { clearInterval(timer); timer = null; } }
  document.addEventListener('visibilitychange', function () {
    if (document.hidden) stop(); else { refresh(); start(); }
  });
  if (!document.hidden) start();
})();
`;

const SCRIPT = { body: OVERVIEW_SCRIPT, etag: etagOf(OVERVIEW_SCRIPT), type: 'text/javascript; charset=utf-8' };

/** The script, revalidated by its ETag as the stylesheet is. */
export function sendOverviewScript(req: Request, res: Response): void {
  sendAsset(req, res, SCRIPT);
}

/** The figures, formatted in the page's language, as JSON. */
export async function sendOverviewNumbers(context: ConsoleContext, view: View, res: Response): Promise<void> {
  const body = JSON.stringify(await liveNumbers(context, view));
  res.status(200);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(body);
}
