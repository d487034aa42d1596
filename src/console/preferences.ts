// The operator's preferences (docs/console.md#times): the time zone every
// time is shown in, kept in a cookie of this browser for a year, as the
// language is; without one, CONSOLE_TIME_ZONE decides.
import type { Request, Response } from 'express';
import type { ConsoleContext } from './context';
import { html } from '../shared/markup';
import { addCookie, cookie, CONSOLE_BASE, redirect } from './respond';
import { isTimeZone, timeZones } from './times';
import { csrfField, notice, sendView, type View } from './view';

export const ZONE_COOKIE = 'sns_console_zone';

/** The zone of this browser's preference when it is one this Node knows, else the console's default. */
export function chooseZone(cookies: ReadonlyMap<string, string>, fallback: string): string {
  const chosen = cookies.get(ZONE_COOKIE);
  return chosen !== undefined && isTimeZone(chosen) ? chosen : fallback;
}

export function showPreferences(context: ConsoleContext, view: View, req: Request, res: Response): void {
  const { t } = view;
  const current = view.times.zone;
  sendView(
    res,
    view,
    t.preferencesTitle,
    html`${notice(req.query.saved === '1' ? t.preferencesSaved : null)}
<form method="post" action="${CONSOLE_BASE}/preferences">${csrfField(view)}
<div class="field"><label for="zone">${t.timeZoneLabel}</label><p class="hint" id="zone-hint">${t.preferencesZoneHint}</p>
<select id="zone" name="zone" dir="ltr" aria-describedby="zone-hint">${timeZones().map(
      (zone) => html`<option value="${zone}"${zone === current ? html` selected` : ''}>${zone}</option>`,
    )}</select></div>
<p class="hint">${view.times.atSecond(context.now().toISOString())}</p>
<button type="submit">${t.save}</button>
</form>`,
    { current: 'preferences' },
  );
}

export async function savePreferences(context: ConsoleContext, view: View, req: Request, res: Response): Promise<void> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const zone = typeof body.zone === 'string' ? body.zone.slice(0, 64) : '';
  if (!isTimeZone(zone)) {
    res.status(400).setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end(`${view.t.timeZoneLabel}: ${view.t.whyChoose}\n`);
    return;
  }
  await context.audit({
    address: req.ip ?? null,
    account: view.session?.account ?? null,
    operation: 'preferences',
    subject: zone,
    outcome: 'allowed',
  });
  addCookie(res, cookie(ZONE_COOKIE, zone, { secure: context.settings.secureCookies, maxAge: 365 * 24 * 3600 }));
  redirect(res, `${CONSOLE_BASE}/preferences?saved=1`);
}
