// Console sessions (docs/console.md#sessions): a random 256-bit value in an
// HttpOnly, SameSite=Strict cookie; the store keeps its SHA-256 with the
// account, a CSRF token and two times. A session ends when unused for the
// idle time, at its absolute lifetime, at sign-out (its row deleted, so
// every node sees it at once), and when its account is disabled, removed or
// given a new role or password.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type { ConsoleContext } from './context';
import { addCookie, cookie } from './respond';
import type { SignedIn } from './view';

export const SESSION_COOKIE = 'sns_console_session';
/** The sign-in form's CSRF token, before there is a session (double submit). */
export const SIGN_IN_COOKIE = 'sns_console_signin';

/** A session seen within this long is not written again: one write a minute at most per session. */
const TOUCH_EVERY_MS = 60_000;

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
export const sessionKey = (token: string): string => sha256(token).toString('hex');
export const randomToken = (): string => randomBytes(32).toString('base64url');

/** Constant-time comparison of two secrets of any length. */
export function sameSecret(given: unknown, expected: string): boolean {
  if (typeof given !== 'string' || given === '' || expected === '') return false;
  return timingSafeEqual(sha256(given), sha256(expected));
}

export type SessionLookup =
  | { readonly state: 'none' }
  /** There was a session and it ended (idle, too old, account disabled): say so on the sign-in page. */
  | { readonly state: 'ended' }
  | { readonly state: 'active'; readonly session: SignedIn };

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export async function lookUpSession(
  context: ConsoleContext,
  cookies: ReadonlyMap<string, string>,
): Promise<SessionLookup> {
  const token = cookies.get(SESSION_COOKIE);
  if (token === undefined || !TOKEN.test(token)) return { state: token === undefined ? 'none' : 'ended' };
  const id = sessionKey(token);
  const found = await context.stores.console.findSession(id);
  if (found === null) return { state: 'ended' };
  const now = context.now().getTime();
  const { idleMs, maxAgeMs } = context.settings;
  if (found.disabled || Date.parse(found.lastSeenAt) + idleMs <= now || Date.parse(found.createdAt) + maxAgeMs <= now) {
    await context.stores.console.deleteSession(id);
    return { state: 'ended' };
  }
  if (Date.parse(found.lastSeenAt) + TOUCH_EVERY_MS <= now) await context.stores.console.touchSession(id);
  return {
    state: 'active',
    session: { id, account: found.account, role: found.role, csrf: found.csrf, timeZone: found.timeZone },
  };
}

/** Starts a session for `account` (a new value every sign-in: no fixation) and sets its cookie. */
export async function startSession(context: ConsoleContext, res: Response, account: string): Promise<void> {
  const token = randomToken();
  await context.stores.console.createSession({ id: sessionKey(token), account, csrf: randomToken() });
  addCookie(res, cookie(SESSION_COOKIE, token, { secure: context.settings.secureCookies }));
  addCookie(res, cookie(SIGN_IN_COOKIE, '', { secure: context.settings.secureCookies, maxAge: 0 }));
  // Sessions that ended without a sign-out go now, rather than on a timer of their own.
  const now = context.now().getTime();
  await context.stores.console.pruneSessions(
    new Date(now - context.settings.idleMs).toISOString(),
    new Date(now - context.settings.maxAgeMs).toISOString(),
  );
}

export async function endSession(context: ConsoleContext, res: Response, session: SignedIn): Promise<void> {
  await context.stores.console.deleteSession(session.id);
  addCookie(res, cookie(SESSION_COOKIE, '', { secure: context.settings.secureCookies, maxAge: 0 }));
}

/** The CSRF token of a state-changing form: the session's, or the sign-in form's cookie. */
export function csrfMatches(req: Request, expected: string): boolean {
  const body = req.body as Record<string, unknown> | undefined;
  return sameSecret(body?.csrf, expected);
}
