// One entry per console route behind the session check (docs/architecture.md#the-console):
// method, path, the role it needs, the operation it is recorded and audited
// as, and zod schemas of its path, query and form. mountRoutes registers
// them: the role check (a refusal is audited and answered 403), the inputs
// checked by the schemas, then the handler with a typed signed-in context;
// what the handler answers (a page its view drew, a redirect) is written here.
import type { NextFunction, Request, Response, Router } from 'express';
import { z } from 'zod';
import { html, type HtmlValue } from '../shared/markup';
import { expressPath } from '../shared/route-name';
import type { AnyInputs, Inputs, Schema } from '../shared/route-inputs';
import type { ConsoleRole } from '../store';
import { callOf, type CallRecord } from '../wire';
import type { ConsoleAuditEntry } from './audit';
import type { ConsoleContext } from './context';
import type { Lang } from './i18n';
import { CONSOLE_BASE, redirect } from './respond';
import { forbidden } from './sign-in';
import { issueText } from './validation';
import {
  allows,
  errorSummary,
  sendView,
  type PageOptions,
  type PageTitle,
  type SignedIn,
  type SignedInView,
} from './view';

export type Method = 'get' | 'post';

/** An audit entry of the signed-in account from the request's address; the route's operation unless named. */
export type SignedAuditEntry = Omit<ConsoleAuditEntry, 'address' | 'account' | 'operation'> & {
  readonly operation?: string;
};

/** What a handler behind the session check is handed. */
export interface Signed {
  readonly view: SignedInView;
  readonly session: SignedIn;
  readonly role: ConsoleRole;
  readonly lang: Lang;
  /** The zone the operator's times are shown in. */
  readonly zone: string;
  /** The per-request record (src/wire/call-record.ts): the metrics' and the access log's. */
  readonly record: CallRecord;
  readonly address: string | null;
  readonly req: Request;
  readonly res: Response;
  readonly audit: (entry: SignedAuditEntry) => Promise<void>;
}

/** A whole page: what a view (a pure function of the page's model) gives and the route table draws in the frame. */
export interface Page extends PageOptions {
  readonly title: string | PageTitle;
  readonly main: HtmlValue;
  readonly status?: number;
}

/** 303 to a path under the console. */
export interface Redirect {
  readonly redirect: string;
}

/** A handler's answer; nothing when it wrote its answer itself (a download, the import's pages). */
export type Answer = Page | Redirect | void;

interface RouteShape<P, Q, B, Input> {
  readonly method: Method;
  /** Under /console, with `{name}` for a path parameter: `/students/{id}/edit`. */
  readonly path: string;
  /** The least role that may use it. */
  readonly role: ConsoleRole;
  /** The request's operation in the metrics and the log, and the handler's audit entries'; null: none (a confirmation page). */
  readonly operation: string | null;
  /** A path that does not pass is no page: 404. */
  readonly params?: P;
  /** A query or form that does not pass is a 400 page naming the problems. */
  readonly query?: Q;
  readonly body?: B;
  /** A read that costs the store much (a whole count, a sort, an export): at most HEAVY_PER_ACCOUNT at once an account. */
  readonly heavy?: boolean;
  readonly handle: (context: ConsoleContext, signed: Signed, input: Input) => Promise<Answer> | Answer;
}

/** A route as written: the handler's input typed from its schemas. */
export type RouteSpec<P extends Schema, Q extends Schema, B extends Schema> = RouteShape<P, Q, B, Inputs<P, Q, B>>;

/** A route in the table, whatever its schemas. */
export type ConsoleRoute = RouteShape<z.ZodType, z.ZodType, z.ZodType, AnyInputs>;

/** Types the handler's input from the schemas; mountRoutes checks the input before calling it. */
export function route<P extends Schema = undefined, Q extends Schema = undefined, B extends Schema = undefined>(
  spec: RouteSpec<P, Q, B>,
): ConsoleRoute {
  // mountRoutes calls handle only with the input its schemas have parsed, so
  // the input has their output types.
  return { ...spec, handle: (context, signed, input) => spec.handle(context, signed, input as Inputs<P, Q, B>) };
}

/** A text value of a query or form, cut to `max` characters; anything else (left out, repeated): undefined. */
export const text = (max: number) =>
  z
    .unknown()
    .optional()
    .transform((value) => (typeof value === 'string' ? value.slice(0, max) : undefined));

/** A page's number (`?page=`): 1 when left out or not a number, at most `max`. */
export const pageNumber = (max: number) =>
  z
    .unknown()
    .optional()
    .transform((value) => Math.min(max, Math.max(1, Number.parseInt(String(value ?? '1'), 10) || 1)));

/**
 * A keyset page's cursor (`before=`, `after=`): what `build` makes of its
 * `pattern`'s match, `invalid` for a value the list does not take (a damaged
 * link, which the page names), undefined when left out.
 */
export const keysetCursor = <Cursor>(pattern: RegExp, build: (match: RegExpExecArray) => Cursor) =>
  z
    .unknown()
    .optional()
    .transform((value): Cursor | 'invalid' | undefined => {
      if (value === undefined) return undefined;
      const match = typeof value === 'string' ? pattern.exec(value) : null;
      return match === null ? 'invalid' : build(match);
    });

/** A path's id, cut as the store's ids are bounded. */
export const pathId = (max = 128) => z.string().transform((value) => value.slice(0, max));

/** The signed-in view a route behind the session check finds in `res.locals` (set by the session check in index.ts). */
export type SignedLocals = { signed?: SignedInView };

// The base itself is registered with and without its slash.
const consolePaths = (path: string): string[] =>
  path === '/' ? [CONSOLE_BASE, `${CONSOLE_BASE}/`] : [expressPath(CONSOLE_BASE, path)];

/** What a refusal is audited as: the path's first segment (`/import/{id}/apply`: `import`), as for a refused CSRF token (index.ts). */
export function areaOf(path: string): string {
  const segment = path.replace(/^\/console/, '').split(/[/?]/)[1] ?? '';
  return /^[a-z-]{1,32}$/.test(segment) ? segment : 'other';
}

/**
 * Heavy reads one account may have under way at once, in this process (docs/security.md#review-2026-11-28):
 * a page's script or a few tabs never need more, and one account's parallel requests cannot keep the store
 * (on SQLite, the event loop answering the calls) busy with them.
 */
export const HEAVY_PER_ACCOUNT = 2;

/** Registers `routes` on `router`, behind its session check. */
export function mountRoutes(router: Router, context: ConsoleContext, routes: readonly ConsoleRoute[]): void {
  const heavyUnderWay = new Map<string, number>();
  for (const entry of routes) {
    const area = areaOf(entry.path);
    router[entry.method](consolePaths(entry.path), async (req: Request, res: Response, next: NextFunction) => {
      const view = (res.locals as SignedLocals).signed;
      if (view === undefined) throw new Error(`console route ${entry.path} reached without a session`);
      const { session } = view;
      const address = req.ip ?? null;
      if (!allows(session.role, entry.role)) {
        await context.audit({ address, account: session.account, operation: area, outcome: 'refused', reason: 'role' });
        forbidden(view, res, 'role');
        return;
      }
      const params = check(entry.params, req.params);
      if (params.problems !== null) {
        next();
        return;
      }
      const record = callOf(res);
      if (entry.operation !== null) record.operation = entry.operation;
      if (entry.heavy === true) {
        const account = session.account;
        const under = heavyUnderWay.get(account) ?? 0;
        if (under >= HEAVY_PER_ACCOUNT) {
          res.setHeader('Retry-After', '1');
          sendView(res, view, view.t.problem, html`<p>${view.t.tooManyAtOnce}</p>`, { status: 429 });
          return;
        }
        heavyUnderWay.set(account, under + 1);
        res.once('close', () => {
          const left = (heavyUnderWay.get(account) ?? 1) - 1;
          if (left > 0) heavyUnderWay.set(account, left);
          else heavyUnderWay.delete(account);
        });
      }
      const query = check(entry.query, req.query);
      const body = check(entry.body, req.body ?? {});
      const problems = [...(query.problems ?? []), ...(body.problems ?? [])];
      if (problems.length > 0) {
        sendView(
          res,
          view,
          view.t.problem,
          html`${errorSummary(
            view,
            problems.map((issue) => ({ text: `${issue.path.join('.')}: ${issueText(view, issue)}` })),
          )}`,
          { status: 400 },
        );
        return;
      }
      const signed: Signed = {
        view,
        session,
        role: session.role,
        lang: view.lang,
        zone: view.times.zone,
        record,
        address,
        req,
        res,
        audit: (audited) =>
          context.audit({
            ...audited,
            address,
            account: session.account,
            operation: audited.operation ?? entry.operation ?? area,
          }),
      };
      answer(
        res,
        view,
        await entry.handle(context, signed, { params: params.data, query: query.data, body: body.data }),
      );
    });
  }
}

function check(
  schema: z.ZodType | undefined,
  value: unknown,
): { data: unknown; problems: null } | { data: undefined; problems: z.core.$ZodIssue[] } {
  if (schema === undefined) return { data: undefined, problems: null };
  const parsed = schema.safeParse(value);
  return parsed.success ? { data: parsed.data, problems: null } : { data: undefined, problems: parsed.error.issues };
}

function answer(res: Response, view: SignedInView, reply: Answer): void {
  if (!reply) return;
  if ('redirect' in reply) {
    redirect(res, reply.redirect);
    return;
  }
  const { title, main, ...options } = reply;
  sendView(res, view, title, main, options);
}
