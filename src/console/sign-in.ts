// The sign-in page and its form (docs/console.md#signing-in). Failed
// attempts are counted per account and per address in the store, by the
// rules of the policy's Basic users (sign-in-throttle.ts), before bcrypt
// runs; an unknown name costs the same bcrypt check as a known one.
import type { Response } from 'express';
import { html, type Html } from '../shared/markup';
import type { ConsoleContext, PageHandler } from './context';
import { addCookie, CONSOLE_BASE, cookie, redirect, sendPage } from './respond';
import { csrfMatches, randomToken, SIGN_IN_COOKIE, startSession } from './sessions';
import { errorSummary, notice, page, sendView, type View } from './view';

/** A bcrypt hash of nothing anyone knows: the check an unknown name costs. */
const NO_ACCOUNT_HASH = '$2b$10$RMBumYn8wLQqrjgGjSW8repRl.cSEzIzfRpJFLJalbmbCdaeOAbce';
const NAME_MAX = 64;
/** bcrypt reads 72 bytes; a longer field is cut, not refused, as the CLI's hash was made. */
const PASSWORD_MAX = 1024;

export type SignInNotice = 'ended' | 'signed-out' | null;

function signInPage(view: View, csrf: string, options: { name?: string; problem?: string; note?: SignInNotice }): Html {
  const { t } = view;
  const note = options.note === 'ended' ? t.sessionEnded : options.note === 'signed-out' ? t.signedOut : null;
  const invalid = options.problem !== undefined;
  return page(
    view,
    t.signIn,
    html`${notice(note)}${errorSummary(view, invalid ? [{ field: 'name', text: options.problem ?? '' }] : [])}
<form class="narrow" method="post" action="${CONSOLE_BASE}/sign-in" novalidate>
<input type="hidden" name="csrf" value="${csrf}">
<div class="field">
<label for="name">${t.userName}</label>
<input id="name" name="name" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" dir="ltr" maxlength="${NAME_MAX}" required value="${options.name ?? ''}"${invalid ? html` aria-invalid="true"` : ''}>
</div>
<div class="field">
<label for="password">${t.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" dir="ltr" required>
</div>
<button type="submit">${t.signIn}</button>
</form>`,
  );
}

/** GET: the form, with a fresh token for it in a cookie (double submit: there is no session yet). */
export function showSignIn(context: ConsoleContext, view: View, res: Response, note: SignInNotice): void {
  const csrf = randomToken();
  addCookie(res, cookie(SIGN_IN_COOKIE, csrf, { secure: context.settings.secureCookies }));
  sendPage(res, 200, signInPage(view, csrf, { note }));
}

export const signIn: PageHandler<[cookies: ReadonlyMap<string, string>]> = async (context, view, req, res, cookies) => {
  const { t } = view;
  const body = (req.body ?? {}) as Record<string, unknown>;
  const address = req.ip ?? null;
  const signInToken = cookies.get(SIGN_IN_COOKIE) ?? '';
  if (!csrfMatches(req, signInToken)) {
    await context.audit({ address, account: null, operation: 'sign-in', outcome: 'refused', reason: 'csrf' });
    forbidden(view, res, 'csrf');
    return;
  }
  const name = typeof body.name === 'string' ? body.name.trim().slice(0, NAME_MAX) : '';
  const password = typeof body.password === 'string' ? body.password.slice(0, PASSWORD_MAX) : '';
  const again = (status: number, problem: string, headers: Record<string, string> = {}) =>
    sendPage(res, status, signInPage(view, signInToken, { name, problem }), headers);
  if (name === '' || password === '') {
    again(400, t.signInMissing);
    return;
  }
  const nowMs = context.now().getTime();
  // The attempt is counted before anything is awaited: a burst of concurrent
  // sign-ins for one name once got nine password checks past a limit of five.
  const attempt = await context.throttle.reserve(address, name, nowMs);
  if ('retryAfter' in attempt) {
    const wait = attempt.retryAfter;
    context.logger.warn({ account: name, callerAddress: address, retryAfter: wait }, 'console: sign-in throttled');
    await context.audit({ address, account: name, operation: 'sign-in', outcome: 'refused', reason: 'throttled' });
    again(429, t.signInThrottled(wait), { 'Retry-After': String(wait) });
    return;
  }
  let account: Awaited<ReturnType<typeof context.stores.console.getAccount>>;
  let matches: boolean;
  try {
    account = await context.stores.console.getAccount(name);
    const check = context.bcrypt.compare(password, account?.passwordHash ?? NO_ACCOUNT_HASH);
    if (check === null) {
      await attempt.cancelled();
      again(503, t.busy, { 'Retry-After': '5' });
      return;
    }
    matches = await check;
  } catch (err) {
    // No answer about the password (the store or the thread failed): not a failure of the caller's.
    await attempt.cancelled().catch(() => undefined);
    throw err;
  }
  if (!matches || account === null || account.disabled) {
    // The attempt stays counted.
    const reason = matches && account?.disabled === true ? 'disabled' : 'credentials';
    // Never the password, not even a wrong one: it may be the right one mistyped.
    context.logger.warn({ account: name, callerAddress: address, reason }, 'console: sign-in failed');
    await context.audit({ address, account: name, operation: 'sign-in', outcome: 'refused', reason });
    again(401, t.signInFailed);
    return;
  }
  await attempt.succeeded(nowMs);
  await startSession(context, res, account.name);
  await context.audit({ address, account: account.name, operation: 'sign-in', outcome: 'allowed' });
  context.logger.info({ account: account.name, callerAddress: address }, 'console: signed in');
  redirect(res, `${CONSOLE_BASE}/`);
};

export function forbidden(view: View, res: Response, why: 'role' | 'csrf'): void {
  const { t } = view;
  const title = why === 'csrf' ? t.csrfTitle : t.forbiddenTitle;
  const text = why === 'csrf' ? t.csrfText : t.forbiddenText;
  sendView(res, view, title, html`<p>${text}</p><p><a href="${CONSOLE_BASE}/">${t.back}</a></p>`, { status: 403 });
}
