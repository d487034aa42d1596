// The operator's preferences (docs/console.md#times): the time zone every
// time is shown in, kept with the account (migration 0019), so that it
// follows the operator from browser to browser; an account with none is
// shown the console's default (CONSOLE_TIME_ZONE, else UTC). The zone comes
// with the session's read (src/store/operator-accounts.ts findSession): no
// page reads the store for it.
import type { Response } from 'express';
import { z } from 'zod';
import type { ConsoleContext } from './context';
import { html } from '../shared/markup';
import { addCookie, cookie, CONSOLE_BASE } from './respond';
import { option } from './partials';
import { text, type Page, type Redirect, type Signed } from './route-table';
import { DEFAULT_TIME_ZONE, isTimeZone, timeZones } from './times';
import { csrfField, errorSummary, notice, type SignedIn, type SignedInView } from './view';

/**
 * The cookie earlier releases kept a browser's zone in. It is read once, to
 * give an account that has no zone yet the one its operator chose there,
 * and cleared (docs/design.md, "Times in the operator's zone").
 */
export const ZONE_COOKIE = 'sns_console_zone';

/** The zone of an operator who has chosen none. */
export const defaultZone = (context: ConsoleContext): string => context.settings.timeZone ?? DEFAULT_TIME_ZONE;

/** The account's zone when this Node knows it (an upgrade of Node may drop one), else `fallback`. */
export const accountZone = (stored: string | null, fallback: string): string =>
  stored !== null && isTimeZone(stored) ? stored : fallback;

/**
 * A browser that still carries the earlier releases' cookie: the cookie is
 * cleared, and its zone, when it is one this Node knows, becomes the
 * account's if the account has none yet (the first such browser wins;
 * audited as a save is). The session as it now stands.
 */
export async function adoptBrowserZone(
  context: ConsoleContext,
  res: Response,
  session: SignedIn,
  address: string | null,
  earlier: string,
): Promise<SignedIn> {
  addCookie(res, cookie(ZONE_COOKIE, '', { secure: context.settings.secureCookies, maxAge: 0 }));
  if (session.timeZone !== null || !isTimeZone(earlier)) return session;
  if (!(await context.stores.console.setAccountTimeZone(session.account, earlier, { onlyIfUnset: true })))
    return session;
  await context.audit({
    address,
    account: session.account,
    operation: 'preferences',
    subject: earlier,
    outcome: 'allowed',
    reason: 'from this browser',
  });
  return { ...session, timeZone: earlier };
}

export const preferencesQuery = z.object({ saved: text(1) });
/** The zone chosen; empty: the console's default. A longer value than any zone is kept long enough to be refused. */
export const preferencesForm = z.object({ zone: text(65) });

/** The form, with the account's zone chosen (or the default), the time now in the zone in use, and a refusal. */
export function preferencesPage(
  view: SignedInView,
  now: Date,
  fallback: string,
  state: { readonly saved?: boolean; readonly refused?: boolean } = {},
): Page {
  const { t } = view;
  const chosen = view.session.timeZone ?? '';
  const zones = timeZones();
  // A zone saved under another name Intl takes (an alias): offered too, so that the form shows it chosen.
  // The list is left to right (zone names); an Arabic label there, its zone's name last, reads whole unisolated.
  const extra = chosen !== '' && !zones.includes(chosen) ? [chosen] : [];
  const problems = state.refused === true ? [{ field: 'zone', text: t.unknownZone }] : [];
  return {
    title: t.preferencesTitle,
    main: html`${notice(state.saved === true ? t.preferencesSaved : null)}${errorSummary(view, problems)}
<form method="post" action="${CONSOLE_BASE}/preferences">${csrfField(view)}
<div class="field"><label for="zone">${t.timeZoneLabel}</label><p class="hint" id="zone-hint">${t.preferencesZoneHint}</p>
<select id="zone" name="zone" dir="ltr" aria-describedby="zone-hint"${problems.length > 0 ? html` aria-invalid="true"` : ''}>${option('', t.consoleDefaultZone(fallback), chosen)}${[...extra, ...zones].map((zone) => option(zone, zone, chosen))}</select></div>
<p class="hint">${view.times.atSecond(now.toISOString())}</p>
<button type="submit">${t.save}</button>
</form>`,
    status: problems.length > 0 ? 400 : 200,
    current: 'preferences',
  };
}

/**
 * Keeps the zone chosen with the account (empty: back to the default). A
 * zone this Node does not know is refused on the form, in the page's
 * language, and nothing is written.
 */
export async function savePreferences(
  context: ConsoleContext,
  signed: Signed,
  form: z.output<typeof preferencesForm>,
): Promise<Page | Redirect> {
  const fallback = defaultZone(context);
  const chosen = form.zone;
  if (chosen === undefined || (chosen !== '' && !isTimeZone(chosen)))
    return preferencesPage(signed.view, context.now(), fallback, { refused: true });
  const zone = chosen === '' ? null : chosen;
  // No account to write to: it was removed meanwhile, and its sessions with it.
  if (!(await context.stores.console.setAccountTimeZone(signed.session.account, zone)))
    return { redirect: `${CONSOLE_BASE}/sign-in?ended=1` };
  await signed.audit({ subject: zone, outcome: 'allowed', reason: zone === null ? 'the console default' : null });
  return { redirect: `${CONSOLE_BASE}/preferences?saved=1` };
}
