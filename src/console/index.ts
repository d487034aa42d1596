// The operators' console under /console/ (docs/console.md): server-rendered
// pages for support staff, behind accounts and sessions of its own, with a
// role check on the server for every action, a CSRF token in every form, and
// an audit entry for every action. CONSOLE=false turns it off (404).
import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { BcryptPool } from '../access/bcrypt-pool';
import { addressMatches } from '../access/policy';
import type { Logger } from '../log';
import { StoreError, type ConsoleRole } from '../store';
import { callOf, sendText } from '../wire';
import { ACCOUNT_NAME, addAccount, changeAccount, confirmRemoval, showAccounts, type AccountChange } from './accounts';
import { consoleAudit } from './audit';
import type { ConsoleContext, ConsoleSettings, ConsoleStores } from './context';
import { html } from '../shared/markup';
import { chooseLang, LANG_COOKIE, type Lang } from './i18n';
import { showOverview } from './overview';
import { sendOverviewNumbers, sendOverviewScript } from './overview-live';
import { showSearch, showStudent } from './students';
import { confirmResend, isChannel, resend, showMessage } from './message';
import { downloadMessageList, showMessageList } from './message-list';
import { confirmResendDead, dismissDead, resendDead, showDead } from './dead-letters';
import { chooseZone, savePreferences, showPreferences } from './preferences';
import { DEFAULT_TIME_ZONE } from './times';
import { showAudit } from './audit-page';
import { createImportJobs, type ImportJobs } from './import-jobs';
import { applyUpload, downloadReport, receiveUpload, showImport, showUpload } from './import-page';
import { storeSignInThrottle, type SignInThrottle } from './sign-in-throttle';
import { isMultipart } from './multipart';
import { saveStudent, showEditStudent } from './student-edit';
import { showSchools, showSchoolStudents } from './schools';
import { saveDevice, saveSchool, showEditDevice, showEditSchool } from './school-device-edit';
import { confirmRemoveEvents, removeEvents, saveEvents, showEventsForm } from './school-events';
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
import { csrfMatches, endSession, lookUpSession } from './sessions';
import { forbidden, showSignIn, signIn } from './sign-in';
import { CONSOLE_CSS } from './style';
import { allows, sendView, type SignedIn, type View, viewFor } from './view';

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
interface Local extends Express.Locals {
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

  router.use((req: Request, res: Response, next: NextFunction) => {
    const record = callOf(res);
    record.endpoint = 'console';
    securityHeaders(res);
    const allow = context.settings.allow;
    if (allow !== null && !addressMatches(allow, req.ip ?? '')) {
      sendText(res, 403, 'The console is not open to this address (CONSOLE_ALLOW).');
      return;
    }
    const cookies = parseCookies(req.headers.cookie);
    res.locals.cookies = cookies;
    res.locals.view = viewFor(
      chooseLang(cookies, req.headers),
      null,
      req.originalUrl.slice(0, 1000),
      chooseZone(cookies, context.settings.timeZone ?? DEFAULT_TIME_ZONE),
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

  const forms = express.urlencoded({ extended: false, limit: FORM_LIMIT, parameterLimit: 50 });

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
    const view = viewFor(local(res).view.lang, found.session, local(res).view.here, local(res).view.times.zone);
    res.locals.view = view;
    // The import's upload carries its token in the multipart body, read (within its bound) and checked by its route.
    const deferred =
      req.method === 'POST' && req.originalUrl.split('?')[0] === `${CONSOLE_BASE}/import` && isMultipart(req);
    if (req.method === 'POST' && !deferred && !csrfMatches(req, found.session.csrf)) {
      await context.audit({
        address: req.ip ?? null,
        account: found.session.account,
        operation: operationOf(req.originalUrl),
        outcome: 'refused',
        reason: 'csrf',
      });
      forbidden(view, res, 'csrf');
      return;
    }
    next();
  });

  /** The role check of a route: below it, a 403 and an audit entry, and nothing done. */
  const need =
    (role: ConsoleRole): RequestHandler =>
    async (req, res, next) => {
      const { view } = local(res);
      const session = view.session as SignedIn;
      if (allows(session.role, role)) {
        next();
        return;
      }
      await context.audit({
        address: req.ip ?? null,
        account: session.account,
        operation: operationOf(req.originalUrl),
        outcome: 'refused',
        reason: 'role',
      });
      forbidden(view, res, 'role');
    };

  router.get([`${CONSOLE_BASE}`, `${CONSOLE_BASE}/`], async (req, res) => {
    callOf(res).operation = 'overview';
    await showOverview(context, local(res).view, req, res);
  });

  // The overview's live figures and the script that asks for them (docs/console.md#overview).
  router.get(`${CONSOLE_BASE}/overview.js`, (req, res) => {
    callOf(res).operation = 'script';
    sendOverviewScript(req, res);
  });
  router.get(`${CONSOLE_BASE}/overview.json`, async (_req, res) => {
    callOf(res).operation = 'overview';
    await sendOverviewNumbers(context, local(res).view, res);
  });

  router.get(`${CONSOLE_BASE}/students`, async (req, res) => {
    callOf(res).operation = 'students';
    await showSearch(context, local(res).view, req, res);
  });
  router.get(`${CONSOLE_BASE}/students/:id`, async (req, res) => {
    callOf(res).operation = 'student';
    await showStudent(context, local(res).view, req, res, String(req.params.id).slice(0, 128), false);
  });
  router.get(`${CONSOLE_BASE}/students/:id/edit`, need('operator'), async (req, res) => {
    callOf(res).operation = 'student-edit';
    await showEditStudent(context, local(res).view, res, String(req.params.id).slice(0, 128));
  });
  router.post(`${CONSOLE_BASE}/students/:id/edit`, need('operator'), async (req, res) => {
    callOf(res).operation = 'student-edit';
    await saveStudent(context, local(res).view, req, res, String(req.params.id).slice(0, 128));
  });
  router.post(`${CONSOLE_BASE}/students/:id/reveal`, need('operator'), async (req, res) => {
    callOf(res).operation = 'reveal-token';
    await showStudent(context, local(res).view, req, res, String(req.params.id).slice(0, 128), true);
  });

  router.get(`${CONSOLE_BASE}/import`, need('operator'), (_req, res) => {
    callOf(res).operation = 'import';
    showImport(local(res).view, res);
  });
  router.post(`${CONSOLE_BASE}/import`, need('operator'), async (req, res) => {
    callOf(res).operation = 'import-check';
    await receiveUpload(context, local(res).view, req, res);
  });
  router.get(`${CONSOLE_BASE}/import/:id`, need('operator'), async (req, res) => {
    callOf(res).operation = 'import';
    await showUpload(context, local(res).view, res, String(req.params.id).slice(0, 64));
  });
  router.post(`${CONSOLE_BASE}/import/:id/apply`, need('operator'), async (req, res) => {
    callOf(res).operation = 'import-apply';
    await applyUpload(context, local(res).view, req, res, String(req.params.id).slice(0, 64));
  });
  router.get(`${CONSOLE_BASE}/import/:id/:report`, need('operator'), async (req, res, next) => {
    const match = /^(check|apply)\.(txt|json)$/.exec(String(req.params.report));
    if (match === null) {
      next();
      return;
    }
    callOf(res).operation = 'import-report';
    const [, kind, format] = match as RegExpExecArray & [string, 'check' | 'apply', 'txt' | 'json'];
    await downloadReport(context, local(res).view, req, res, String(req.params.id).slice(0, 64), kind, format);
  });

  router.get(`${CONSOLE_BASE}/messages`, async (req, res) => {
    callOf(res).operation = 'messages';
    await showMessageList(context, local(res).view, req, res);
  });
  router.get(`${CONSOLE_BASE}/messages.csv`, async (req, res) => {
    callOf(res).operation = 'messages-export';
    await downloadMessageList(context, local(res).view, req, res);
  });
  router.get(`${CONSOLE_BASE}/messages/:channel/:id`, async (req, res, next) => {
    const channel = String(req.params.channel);
    if (!isChannel(channel)) {
      next();
      return;
    }
    callOf(res).operation = 'message';
    await showMessage(context, local(res).view, req, res, channel, String(req.params.id).slice(0, 128));
  });
  router.get(`${CONSOLE_BASE}/messages/:channel/:id/resend`, need('operator'), (req, res, next) => {
    const channel = String(req.params.channel);
    if (!isChannel(channel)) {
      next();
      return;
    }
    confirmResend(local(res).view, res, channel, String(req.params.id).slice(0, 128));
  });
  router.post(`${CONSOLE_BASE}/messages/:channel/:id/resend`, need('operator'), async (req, res, next) => {
    const channel = String(req.params.channel);
    if (!isChannel(channel)) {
      next();
      return;
    }
    callOf(res).operation = 'resend';
    await resend(context, local(res).view, req, res, channel, String(req.params.id).slice(0, 128));
  });

  router.get(`${CONSOLE_BASE}/dead`, async (req, res) => {
    callOf(res).operation = 'dead';
    await showDead(context, local(res).view, req, res);
  });
  router.get(`${CONSOLE_BASE}/dead/resend`, need('operator'), async (req, res) => {
    await confirmResendDead(context, local(res).view, req, res);
  });
  router.post(`${CONSOLE_BASE}/dead/resend`, need('operator'), async (req, res) => {
    callOf(res).operation = 'resend-dead';
    await resendDead(context, local(res).view, req, res);
  });

  // Dismissing a dead letter, and the operator's preferences (docs/console.md#dead-letters, #times).
  router.post(`${CONSOLE_BASE}/dead/:channel/:id/dismiss`, need('operator'), async (req, res, next) => {
    const channel = String(req.params.channel);
    if (!isChannel(channel)) {
      next();
      return;
    }
    callOf(res).operation = 'dismiss-dead';
    await dismissDead(context, local(res).view, req, res, channel, String(req.params.id).slice(0, 128));
  });
  router.get(`${CONSOLE_BASE}/preferences`, (req, res) => {
    callOf(res).operation = 'preferences';
    showPreferences(context, local(res).view, req, res);
  });
  router.post(`${CONSOLE_BASE}/preferences`, async (req, res) => {
    callOf(res).operation = 'preferences';
    await savePreferences(context, local(res).view, req, res);
  });

  router.get(`${CONSOLE_BASE}/schools`, async (req, res) => {
    callOf(res).operation = 'schools';
    await showSchools(context, local(res).view, req, res);
  });
  router.get(`${CONSOLE_BASE}/schools/edit`, need('operator'), async (req, res) => {
    callOf(res).operation = 'school-edit';
    await showEditSchool(context, local(res).view, req, res);
  });
  router.post(`${CONSOLE_BASE}/schools/edit`, need('operator'), async (req, res) => {
    callOf(res).operation = 'school-edit';
    await saveSchool(context, local(res).view, req, res);
  });
  router.get(`${CONSOLE_BASE}/schools/events`, need('operator'), async (req, res) => {
    callOf(res).operation = 'school-events';
    await showEventsForm(context, local(res).view, req, res);
  });
  router.post(`${CONSOLE_BASE}/schools/events`, need('operator'), async (req, res) => {
    callOf(res).operation = 'school-events';
    await saveEvents(context, local(res).view, req, res);
  });
  router.get(`${CONSOLE_BASE}/schools/events/remove`, need('operator'), async (req, res) => {
    callOf(res).operation = 'school-events-remove';
    await confirmRemoveEvents(context, local(res).view, req, res);
  });
  router.post(`${CONSOLE_BASE}/schools/events/remove`, need('operator'), async (req, res) => {
    callOf(res).operation = 'school-events-remove';
    await removeEvents(context, local(res).view, req, res);
  });
  router.get(`${CONSOLE_BASE}/devices/:id/edit`, need('operator'), async (req, res) => {
    callOf(res).operation = 'device-edit';
    await showEditDevice(context, local(res).view, req, res, String(req.params.id).slice(0, 128));
  });
  router.post(`${CONSOLE_BASE}/devices/:id/edit`, need('operator'), async (req, res) => {
    callOf(res).operation = 'device-edit';
    await saveDevice(context, local(res).view, req, res, String(req.params.id).slice(0, 128));
  });
  router.get(`${CONSOLE_BASE}/schools/students`, async (req, res) => {
    callOf(res).operation = 'schools';
    await showSchoolStudents(context, local(res).view, req, res);
  });
  router.get(`${CONSOLE_BASE}/audit`, async (req, res) => {
    callOf(res).operation = 'audit';
    await showAudit(context, local(res).view, req, res);
  });

  router.post(`${CONSOLE_BASE}/sign-out`, async (req, res) => {
    callOf(res).operation = 'sign-out';
    const session = local(res).view.session as SignedIn;
    await endSession(context, res, session);
    await context.audit({
      address: req.ip ?? null,
      account: session.account,
      operation: 'sign-out',
      outcome: 'allowed',
    });
    redirect(res, `${CONSOLE_BASE}/sign-in?out=1`);
  });

  router.get(`${CONSOLE_BASE}/accounts`, need('admin'), async (req, res) => {
    callOf(res).operation = 'accounts';
    await showAccounts(context, local(res).view, req, res);
  });
  router.post(`${CONSOLE_BASE}/accounts`, need('admin'), async (req, res) => {
    callOf(res).operation = 'account-add';
    await addAccount(context, local(res).view, req, res);
  });
  // A name an account cannot have is no account's page: 404, nothing asked or done
  // (`vwr%2Fdisable%3F` once made the removal's form disable `vwr`).
  router.get(`${CONSOLE_BASE}/accounts/:name/remove`, need('admin'), (req, res, next) => {
    const name = String(req.params.name);
    if (!ACCOUNT_NAME.test(name)) {
      next();
      return;
    }
    confirmRemoval(local(res).view, res, name);
  });
  router.post(`${CONSOLE_BASE}/accounts/:name/:change`, need('admin'), async (req, res, next) => {
    const change = String(req.params.change);
    if (!['role', 'disable', 'enable', 'remove'].includes(change) || !ACCOUNT_NAME.test(String(req.params.name))) {
      next();
      return;
    }
    callOf(res).operation = `account-${change}`;
    await changeAccount(context, local(res).view, req, res, String(req.params.name), change as AccountChange);
  });

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

/** A bounded operation name for the audit trail and the metrics: the path's first segment under /console. */
function operationOf(url: string): string {
  const segment = (url.split('?')[0] ?? '').replace(/^\/console\/?/, '').split('/')[0] ?? '';
  return /^[a-z-]{1,32}$/.test(segment) ? segment : 'other';
}
