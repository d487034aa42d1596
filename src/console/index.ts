// The operators' console under /console/ (docs/console.md): server-rendered
// pages for support staff, behind accounts and sessions of its own, with a
// role check on the server for every action, a CSRF token in every form, and
// an audit entry for every action. CONSOLE=false turns it off (404).
import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { BcryptPool } from '../access/bcrypt-pool';
import { addressMatches } from '../access/policy';
import type { Logger } from '../log';
import { StoreError } from '../store';
import { callOf, sendText } from '../wire';
import { consoleAudit } from './audit';
import type { ConsoleContext, ConsoleSettings, ConsoleStores } from './context';
import { html } from '../shared/markup';
import { routeNamer } from '../shared/route-name';
import { chooseLang, LANG_COOKIE, type Lang } from './i18n';
import { accountZone, adoptBrowserZone, defaultZone, ZONE_COOKIE } from './preferences';
import { createImportJobs, type ImportJobs } from './import-jobs';
import { storeSignInThrottle, type SignInThrottle } from './sign-in-throttle';
import { isMultipart } from './multipart';
import {
  addCookie,
  BadHeaderValue,
  CONSOLE_BASE,
  cookie,
  headerText,
  parseCookies,
  redirect,
  etagOf,
  securityHeaders,
  sendAsset,
} from './respond';
import { areaOf, mountRoutes, type SignedLocals } from './route-table';
import { CONSOLE_ROUTES } from './routes';
import { csrfMatches, lookUpSession } from './sessions';
import { forbidden, showSignIn, signIn } from './sign-in';
import { CONSOLE_CSS } from './style';
import { sendView, type SignedIn, type View, viewFor } from './view';

export { CONSOLE_BASE } from './respond';
export { ACCOUNT_BCRYPT_COST, ACCOUNT_NAME, PASSWORD_MIN } from './accounts';
export type { ConsoleSettings, ConsoleStores } from './context';
export type { ImportJobs } from './import-jobs';

/** Failed sign-ins a minute before the next is refused unchecked (docs/console.md#signing-in). */
export const SIGN_IN_FAILURES_PER_ACCOUNT = 5;
export const SIGN_IN_FAILURES_PER_ADDRESS = 10;
const SIGN_IN_WINDOW_MS = 60_000;
/** The largest form the console takes (the roster import has its own limit). */
const FORM_LIMIT = '32kb';

export interface ConsoleOptions {
  readonly stores: ConsoleStores;
  readonly settings: ConsoleSettings;
  readonly logger: Logger;
  /** Checks the passwords off the main thread. */
  readonly bcrypt: BcryptPool;
  readonly throttle?: SignInThrottle;
  readonly now?: () => Date;
  /** Told when an import job is queued (an import slot in this process may claim it at once). */
  readonly onImportQueued?: () => void;
  /** Told when a message is queued again (the in-process worker's notify). */
  readonly onResent?: () => void;
}

/** What the console keeps in `res.locals` beside the call record (src/wire/call-record.ts). */
interface Local extends Express.Locals, SignedLocals {
  view: View;
  cookies: Map<string, string>;
}

const local = (res: Response): Local => res.locals as Local;

const CSS = { body: CONSOLE_CSS, etag: etagOf(CONSOLE_CSS), type: 'text/css; charset=utf-8' };

/** The console's routes, and its import jobs (the tests wait for one to end). */
export type ConsoleHandler = RequestHandler & { readonly imports: ImportJobs };

export function createConsole(options: ConsoleOptions): ConsoleHandler {
  const router = Router({ strict: false });
  const now = options.now ?? (() => new Date());
  const audit = consoleAudit(options.stores.access, now);
  const context: ConsoleContext = {
    stores: options.stores,
    settings: options.settings,
    logger: options.logger,
    bcrypt: options.bcrypt,
    throttle:
      options.throttle ??
      storeSignInThrottle(options.stores.console, {
        perAddress: SIGN_IN_FAILURES_PER_ADDRESS,
        perAccount: SIGN_IN_FAILURES_PER_ACCOUNT,
        windowMs: SIGN_IN_WINDOW_MS,
      }),
    audit,
    imports: createImportJobs({ store: options.stores.console, now, onQueued: options.onImportQueued }),
    now,
    onResent: options.onResent,
  };

  // The console's own routes and its table's: the log names a request's route, never its path (docs/operating.md#logs).
  const routeOf = routeNamer(CONSOLE_BASE, [
    '/console.css',
    '/lang/{lang}',
    '/sign-in',
    ...CONSOLE_ROUTES.map((route) => route.path),
  ]);
  router.use((req: Request, res: Response, next: NextFunction) => {
    const record = callOf(res);
    record.endpoint = 'console';
    record.route = routeOf(req.path);
    securityHeaders(res);
    const allow = context.settings.allow;
    if (allow !== null && !addressMatches(allow, req.ip ?? '')) {
      sendText(res, 403, 'The console is not open to this address (CONSOLE_ALLOW).');
      return;
    }
    // PostgreSQL takes no NUL in a text (docs/security.md#review-2026-11-28): refused here, once for every page.
    if (/%00/i.test(req.originalUrl)) {
      sendText(res, 400, 'Bad Request: the address holds a NUL character.');
      return;
    }
    const cookies = parseCookies(req.headers.cookie);
    res.locals.cookies = cookies;
    // Before the session is known (the sign-in page), times are in the console's default zone.
    res.locals.view = viewFor(
      chooseLang(cookies, req.headers),
      null,
      req.originalUrl.slice(0, 1000),
      defaultZone(context),
    );
    next();
  });

  router.get(`${CONSOLE_BASE}/console.css`, (req, res) => {
    callOf(res).operation = 'style';
    sendAsset(req, res, CSS);
  });

  router.get(`${CONSOLE_BASE}/lang/:lang`, (req, res) => {
    const lang: Lang = req.params.lang === 'ar' ? 'ar' : 'en';
    // Back to a console page only: never an open redirect. Checked before
    // anything is set, so that a bad one (a CR LF) is a 400 and nothing else.
    const back = typeof req.query.back === 'string' ? req.query.back : '';
    const to = headerText(
      'the address to go to',
      /^\/console\/[^\\]*$/.test(back) && !back.startsWith('//') ? back : `${CONSOLE_BASE}/`,
    );
    addCookie(res, cookie(LANG_COOKIE, lang, { secure: context.settings.secureCookies, maxAge: 365 * 24 * 3600 }));
    redirect(res, to);
  });

  const urlencoded = express.urlencoded({ extended: false, limit: FORM_LIMIT, parameterLimit: 50 });
  // A form value with a NUL is refused as the address's is (above).
  const forms = (req: Request, res: Response, next: NextFunction) =>
    urlencoded(req, res, (err?: unknown) => {
      if (err !== undefined) next(err);
      else if (Object.values((req.body ?? {}) as Record<string, unknown>).some((v) => String(v).includes('\0')))
        sendText(res, 400, 'Bad Request: the form holds a NUL character.');
      else next();
    });

  router.get(`${CONSOLE_BASE}/sign-in`, (req, res) => {
    callOf(res).operation = 'sign-in';
    const note = req.query.ended === '1' ? 'ended' : req.query.out === '1' ? 'signed-out' : null;
    showSignIn(context, local(res).view, res, note);
  });
  router.post(`${CONSOLE_BASE}/sign-in`, forms, async (req, res) => {
    callOf(res).operation = 'sign-in';
    await signIn(context, local(res).view, req, res, local(res).cookies);
  });

  // Everything below needs a session; a POST also its CSRF token.
  router.use(CONSOLE_BASE, forms, async (req: Request, res: Response, next: NextFunction) => {
    const found = await lookUpSession(context, local(res).cookies);
    if (found.state !== 'active') {
      redirect(res, `${CONSOLE_BASE}/sign-in${found.state === 'ended' ? '?ended=1' : ''}`);
      return;
    }
    const { lang, here } = local(res).view;
    const signedView = (session: SignedIn) =>
      viewFor(lang, session, here, accountZone(session.timeZone, defaultZone(context)));
    let view = signedView(found.session);
    res.locals.view = view;
    local(res).signed = view;
    // The import's upload carries its token in the multipart body, read (within its bound) and checked by its route.
    const deferred =
      req.method === 'POST' && req.originalUrl.split('?')[0] === `${CONSOLE_BASE}/import` && isMultipart(req);
    if (req.method === 'POST' && !deferred && !csrfMatches(req, found.session.csrf)) {
      await context.audit({
        address: req.ip ?? null,
        account: found.session.account,
        operation: areaOf(req.originalUrl),
        outcome: 'refused',
        reason: 'csrf',
      });
      forbidden(view, res, 'csrf');
      return;
    }
    const earlier = local(res).cookies.get(ZONE_COOKIE);
    if (earlier !== undefined) {
      view = signedView(await adoptBrowserZone(context, res, found.session, req.ip ?? null, earlier));
      res.locals.view = view;
      local(res).signed = view;
    }
    next();
  });

  mountRoutes(router, context, CONSOLE_ROUTES);

  router.use(CONSOLE_BASE, (_req, res) => {
    const { view } = local(res);
    sendView(res, view, view.t.notFoundTitle, html`<p>${view.t.notFoundText}</p>`, { status: 404 });
  });

  // A store outage is a page that says so; anything else is logged and answered plainly.
  router.use(CONSOLE_BASE, (err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const type = (err as { type?: unknown }).type;
    if (type === 'entity.too.large' || type === 'parameters.too.many') {
      sendText(res, 413, 'The form is too large.');
      return;
    }
    if (err instanceof BadHeaderValue) {
      // The request's own fault (a CR or LF in back=, say): no stack trace, nothing logged.
      sendText(res, 400, `Bad Request: ${err.message}.`);
      return;
    }
    if (err instanceof StoreError && err.kind === 'unavailable') {
      res.setHeader('Retry-After', '5');
      sendText(res, 503, 'The store is unavailable; try again in a moment.');
      return;
    }
    options.logger.error({ err, method: req.method, path: req.path }, 'console: request failed');
    sendText(res, 500, 'The request failed on our side; it has been logged.');
  });
  return Object.assign(router, { imports: context.imports });
}

/** CONSOLE=false: every path under /console answers 404, as a path the service does not have. */
export const consoleOff: RequestHandler = (_req, res) => {
  callOf(res).endpoint = 'console';
  sendText(res, 404, 'Not Found.');
};
