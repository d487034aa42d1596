// The operator's preferences (docs/console.md#times): the time zone every
// time is shown in, kept in a cookie of this browser for a year, as the
// language is; without one, CONSOLE_TIME_ZONE decides.
import { z } from 'zod';
import type { ConsoleContext } from './context';
import { html } from '../shared/markup';
import { addCookie, cookie, CONSOLE_BASE } from './respond';
import { option } from './partials';
import { text, type Page, type Redirect, type Signed } from './route-table';
import { isTimeZone, timeZones } from './times';
import { csrfField, notice, type View } from './view';

export const ZONE_COOKIE = 'sns_console_zone';

/** The zone of this browser's preference when it is one this Node knows, else the console's default. */
export function chooseZone(cookies: ReadonlyMap<string, string>, fallback: string): string {
  const chosen = cookies.get(ZONE_COOKIE);
  return chosen !== undefined && isTimeZone(chosen) ? chosen : fallback;
}

export const preferencesQuery = z.object({ saved: text(1) });
export const preferencesForm = z.object({ zone: text(64) });

/** The form, with the zone in use chosen, and the time now in it. */
export function preferencesPage(view: View, now: Date, saved: boolean): Page {
  const { t } = view;
  const current = view.times.zone;
  return {
    title: t.preferencesTitle,
    main: html`${notice(saved ? t.preferencesSaved : null)}
<form method="post" action="${CONSOLE_BASE}/preferences">${csrfField(view)}
<div class="field"><label for="zone">${t.timeZoneLabel}</label><p class="hint" id="zone-hint">${t.preferencesZoneHint}</p>
<select id="zone" name="zone" dir="ltr" aria-describedby="zone-hint">${timeZones().map((zone) => option(zone, zone, current))}</select></div>
<p class="hint">${view.times.atSecond(now.toISOString())}</p>
<button type="submit">${t.save}</button>
</form>`,
    current: 'preferences',
  };
}

/** Keeps the zone chosen in this browser's cookie; a zone this Node does not know is a plain 400. */
export async function savePreferences(
  context: ConsoleContext,
  signed: Signed,
  form: z.output<typeof preferencesForm>,
): Promise<Redirect | undefined> {
  const { view, res } = signed;
  const zone = form.zone ?? '';
  if (!isTimeZone(zone)) {
    res.status(400).setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end(`${view.t.timeZoneLabel}: ${view.t.whyChoose}\n`);
    return undefined;
  }
  await signed.audit({ subject: zone, outcome: 'allowed' });
  addCookie(res, cookie(ZONE_COOKIE, zone, { secure: context.settings.secureCookies, maxAge: 365 * 24 * 3600 }));
  return { redirect: `${CONSOLE_BASE}/preferences?saved=1` };
}
