// Dead letters (docs/console.md#dead-letters): the dead messages of a
// channel, the latest given up first, a page at a time by their key; grouped
// by what their failure means and who must act (src/shared/failure-explanations.ts),
// filtered by that or by the exact error; each can be dismissed (kept,
// audited, out of the list). Resending the messages shown (operators) is a
// secondary action whose confirmation page restates the filter and the
// count, and leaves out the failures that need a change first unless asked.
import { z } from 'zod';
import { explainFailure, explanationByKey, type Explanation } from '../shared/failure-explanations';
import type { ConsoleStore, DeadCursor, OutboxChannel } from '../store';
import type { ConsoleContext } from './context';
import { html } from '../shared/markup';
import { CONSOLE_BASE } from './respond';
import { explanationText, lastErrorText, maskErrorText } from './explain';
import { column, confirmation, pagerOf, stackTable, summaryList } from './partials';
import { keysetCursor, text, type Page, type Redirect, type Signed } from './route-table';
import type { MessageRef } from './message';
import { shortMessageId } from './values';
import { allows, csrfField, errorSummary, notice, type SignedInView } from './view';

const PAGE_SIZE = 50;

type DeadPage = Awaited<ReturnType<ConsoleStore['listDead']>>;
/** Distinct errors read for the groups and the filters (the store's DEAD_ERRORS_READ bounds it too). */
const ERRORS_READ = 500;
const ERROR_MAX = 2000;
const CURSOR = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z)_([\w.:-]{1,128})$/;

export interface DeadQuery {
  readonly channel: OutboxChannel;
  /** An explanation's key: the messages whose failure it explains. */
  readonly reason: string | null;
  /** One exact last error. */
  readonly error: string | null;
  readonly dismissed: boolean;
  readonly before?: DeadCursor;
  readonly after?: DeadCursor;
  /** A value the page does not take (a damaged link): named, and nothing listed. */
  readonly invalid: boolean;
}

const cursor = keysetCursor(CURSOR, (match): DeadCursor => ({ updatedAt: match[1] ?? '', id: match[2] ?? '' }));

const deadFields = {
  channel: text(8),
  reason: text(64),
  error: text(ERROR_MAX),
  dismissed: text(1),
  before: cursor,
  after: cursor,
};

function toDeadQuery(
  raw: Partial<Pick<z.output<z.ZodObject<typeof deadFields>>, 'dismissed' | 'before' | 'after'>> &
    Pick<z.output<z.ZodObject<typeof deadFields>>, 'channel' | 'reason' | 'error'>,
): DeadQuery {
  const reason = raw.reason ? (explanationByKey(raw.reason)?.key ?? null) : null;
  const { before, after } = raw;
  return {
    channel: raw.channel === 'sms' ? 'sms' : 'push',
    reason,
    error: raw.error || null,
    dismissed: raw.dismissed === '1',
    ...(before === undefined || before === 'invalid' ? {} : { before }),
    ...(after === undefined || after === 'invalid' ? {} : { after }),
    invalid:
      (raw.reason !== undefined && raw.reason !== '' && reason === null) || before === 'invalid' || after === 'invalid',
  };
}

const deadFilter = z.object(deadFields).transform(toDeadQuery);

/** The dead letters' filter as a query or form gives it; a value it does not take marks it invalid. */
export const deadQuery = (source: Record<string, unknown>): DeadQuery => deadFilter.parse(source);

/** The list's query: its filter, its page, and what the page that sent here did (`resent=`, `done=`). */
export const deadListQuery = z
  .object({ ...deadFields, resent: text(12), done: text(16) })
  .transform((raw) => ({ q: toDeadQuery(raw), resent: raw.resent, done: raw.done }));

/** The resend's form: the filter shown, and whether the permanent failures are included. */
export const deadResendForm = z
  .object({ channel: deadFields.channel, reason: deadFields.reason, error: deadFields.error, permanent: text(1) })
  .transform((raw) => ({ q: toDeadQuery(raw), include: raw.permanent === '1' }));

/** The dismissal's form: the list's filter to go back to (never its page: the row is gone from it). */
export const dismissForm = z
  .object({ back: text(3000) })
  .transform((raw) => deadQuery(Object.fromEntries(new URLSearchParams(raw.back ?? ''))));

/** The query string of the filter, without the page's cursor. */
export function deadFilterQuery(q: Pick<DeadQuery, 'channel' | 'reason' | 'error' | 'dismissed'>): string {
  const params = new URLSearchParams({ channel: q.channel });
  if (q.reason !== null) params.set('reason', q.reason);
  if (q.error !== null) params.set('error', q.error);
  if (q.dismissed) params.set('dismissed', '1');
  return params.toString();
}

interface Group {
  readonly explanation: Explanation;
  readonly count: number;
  readonly errors: string[];
}

/** The errors the messages died of, grouped by their explanation, the most frequent group first. */
async function groupsOf(context: ConsoleContext, channel: OutboxChannel, dismissed: boolean): Promise<Group[]> {
  const errors = await context.stores.console.deadErrors(channel, ERRORS_READ, dismissed);
  const groups = new Map<string, { explanation: Explanation; count: number; errors: string[] }>();
  for (const { error, count } of errors) {
    const explanation = explainFailure(channel, error);
    if (explanation === null) continue;
    const group = groups.get(explanation.key) ?? { explanation, count: 0, errors: [] };
    group.count += count;
    group.errors.push(error);
    groups.set(explanation.key, group);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || a.explanation.key.localeCompare(b.explanation.key));
}

/** The last errors a filter keeps: one exact error, a group's errors, or any (null). */
function errorsOf(q: DeadQuery, groups: readonly Group[]): string[] | null {
  if (q.error !== null) return [q.error];
  if (q.reason !== null) return groups.find((g) => g.explanation.key === q.reason)?.errors ?? [];
  return null;
}

const cursorParam = (cursor: DeadCursor): string => `${cursor.updatedAt}_${cursor.id}`;

export interface DeadModel {
  readonly q: DeadQuery;
  readonly groups: readonly Group[];
  /** null: the filter is not one the page takes. */
  readonly list: DeadPage | null;
  /** What the page that sent here did: requeued that many (`resent=`), dismissed one. */
  readonly resent: number | null;
  readonly dismissed: boolean;
}

export async function loadDead(context: ConsoleContext, query: z.output<typeof deadListQuery>): Promise<DeadModel> {
  const { q } = query;
  const groups = await groupsOf(context, q.channel, q.dismissed);
  const list = q.invalid
    ? null
    : await context.stores.console.listDead(
        q.channel,
        { errors: errorsOf(q, groups), dismissed: q.dismissed },
        {
          limit: PAGE_SIZE,
          ...(q.before === undefined ? {} : { before: q.before }),
          ...(q.after === undefined ? {} : { after: q.after }),
        },
      );
  return {
    q,
    groups,
    list,
    resent: query.resent === undefined ? null : Number(query.resent) || 0,
    dismissed: query.done === 'dismissed',
  };
}

export function deadPage(view: SignedInView, { q, groups, list, ...done }: DeadModel): Page {
  const { t, f, times } = view;
  const note =
    done.resent !== null ? t.resentAll(done.resent, f.number(done.resent)) : done.dismissed ? t.dismissedNote : null;
  const canAct = allows(view.session.role, 'operator');
  const filter = deadFilterQuery(q);
  const here = (extra: Partial<DeadQuery>) => `${CONSOLE_BASE}/dead?${deadFilterQuery({ ...q, ...extra })}`;
  const tab = (channel: OutboxChannel) =>
    html`<li><a href="${CONSOLE_BASE}/dead?channel=${channel}"${q.channel === channel ? html` aria-current="page"` : ''}>${t.channel[channel]}</a></li>`;
  const pager = pagerOf(view, t.deadPager, `${CONSOLE_BASE}/dead`, filter, list, cursorParam);
  const table = stackTable(list?.items ?? [], [
    column(
      t.colMessage,
      (m) =>
        html`<a href="${CONSOLE_BASE}/messages/${encodeURIComponent(q.channel)}/${encodeURIComponent(m.id)}"><bdi class="code" dir="ltr">${shortMessageId(m.id)}</bdi></a>`,
    ),
    column(t.colStudent, (m) =>
      m.studentId === null
        ? '–'
        : html`<a href="${CONSOLE_BASE}/students/${encodeURIComponent(m.studentId)}"><bdi>${m.studentId}</bdi></a>`,
    ),
    column(t.colGivenUp, (m) => times.atSecond(m.updatedAt)),
    column(t.colAttempts, (m) => f.number(m.attempts), true),
    column(
      t.colLastError,
      (m) =>
        html`${lastErrorText(view, q.channel, m.lastError)}${m.erased ? html`<br><span class="muted">${t.codeErased}</span>` : ''}`,
    ),
    column(t.dismiss, (m) =>
      m.dismissedAt !== null
        ? html`${t.dismissedAt} ${times.at(m.dismissedAt)}`
        : canAct
          ? html`<form class="inline" method="post" action="${CONSOLE_BASE}/dead/${q.channel}/${encodeURIComponent(m.id)}/dismiss">${csrfField(view)}<input type="hidden" name="back" value="${filter}"><button type="submit" class="secondary">${t.dismiss}</button></form>`
          : '–',
    ),
  ]);
  return {
    title: t.deadTitle,
    main: html`${notice(note)}${q.invalid ? errorSummary(view, [{ text: t.badCursor }]) : ''}<nav aria-label="${t.colChannel}"><ul class="tabs">${tab('push')}${tab('sms')}</ul></nav>
<h2>${t.deadGroupsTitle}</h2>
<ul class="errors">
<li><a href="${here({ reason: null, error: null })}"${q.reason === null && q.error === null ? html` aria-current="true"` : ''}>${t.allReasons}</a></li>
${groups.map(
  (g) =>
    html`<li><a href="${here({ reason: g.explanation.key, error: null })}"${q.reason === g.explanation.key && q.error === null ? html` aria-current="true"` : ''}>${g.explanation[view.lang].what}</a> (${f.number(g.count)})<br>${explanationText(view, g.explanation, 'todo')}</li>`,
)}
</ul>
${q.error === null ? '' : html`<p>${t.lastErrorFilter}: <bdi class="code">${maskErrorText(q.error)}</bdi> · <a href="${here({ error: null })}">${t.removeFilter}</a></p>`}
<p><a href="${here({ dismissed: !q.dismissed })}">${q.dismissed ? t.hideDismissed : t.showDismissed}</a></p>
${
  list === null
    ? ''
    : list.total === 0
      ? html`<p role="status">${t.noDead}</p>`
      : html`<p role="status">${t.shown(f.number(list.items.length), f.number(list.total))}</p>
${canAct && !q.dismissed ? html`<p><a class="button secondary" href="${CONSOLE_BASE}/dead/resend?${filter}">${t.resendThese(f.number(list.total))}</a></p>` : ''}
${table}
${pager}`
}`,
    current: 'dead',
    status: q.invalid ? 400 : 200,
  };
}

/** What a resend of the filter shown acts on: the errors it requeues and the counts, with and without the permanent failures. */
async function resendPlan(
  context: ConsoleContext,
  q: DeadQuery,
): Promise<{ groups: Group[]; all: number; permanent: number; errors: (include: boolean) => string[] | null }> {
  const groups = await groupsOf(context, q.channel, false);
  const matching = errorsOf(q, groups);
  const permanentErrors = new Set(groups.filter((g) => g.explanation.permanent).flatMap((g) => g.errors));
  const { total } = await context.stores.console.listDead(
    q.channel,
    { errors: matching, dismissed: false },
    { limit: 1 },
  );
  const kept = matching ?? groups.flatMap((g) => g.errors);
  const permanent =
    permanentErrors.size === 0 || kept.every((e) => !permanentErrors.has(e))
      ? 0
      : (
          await context.stores.console.listDead(
            q.channel,
            { errors: kept.filter((e) => permanentErrors.has(e)), dismissed: false },
            { limit: 1 },
          )
        ).total;
  return {
    groups,
    all: total,
    permanent,
    errors: (include) => (include ? matching : kept.filter((e) => !permanentErrors.has(e))),
  };
}

type ResendPlan = Awaited<ReturnType<typeof resendPlan>>;

export interface ResendDeadModel {
  readonly q: DeadQuery;
  readonly plan: ResendPlan;
}

export async function loadResendDead(context: ConsoleContext, q: DeadQuery): Promise<ResendDeadModel> {
  return { q, plan: await resendPlan(context, q) };
}

/** The confirmation step: the filter restated, the count, and whether the permanent failures are included. */
export function confirmResendDeadPage(view: SignedInView, { q, plan }: ResendDeadModel): Page {
  const { t, f } = view;
  const reason = q.reason === null ? null : explanationByKey(q.reason);
  const back = `${CONSOLE_BASE}/dead?${deadFilterQuery(q)}`;
  return {
    title: t.resend,
    main: html`<p>${t.filterRestated}</p>
${summaryList([
  [t.filterChannel, t.channel[q.channel]],
  [t.filterReason, reason === null ? t.allReasons : reason[view.lang].what],
  q.error !== null && [t.lastErrorFilter, html`<bdi class="code">${maskErrorText(q.error)}</bdi>`],
  [t.colStatus, t.status.dead],
  [t.matching, f.number(plan.all)],
  // Left out unless asked, but only when there are others to resend; when all are such, the question is about all.
  [
    t.filterPermanent,
    plan.permanent === plan.all ? f.number(plan.permanent) : html`${f.number(plan.permanent)} (${t.permanentExcluded})`,
  ],
])}
${
  plan.all === 0
    ? html`<p role="status">${t.noneToResend}</p><p><a href="${back}">${t.back}</a></p>`
    : confirmation(view, {
        // When every match needs a change first, there is no "some" to resend: the question is about all of them.
        question: html`<p>${
          plan.permanent === 0
            ? t.confirmResendFiltered(f.number(plan.all))
            : plan.permanent === plan.all
              ? t.confirmResendPermanent(f.number(plan.all))
              : t.confirmResendSome(f.number(plan.all - plan.permanent), f.number(plan.all))
        }</p>`,
        action: `${CONSOLE_BASE}/dead/resend`,
        yes: t.yesResend,
        back,
        fields: html`
<input type="hidden" name="channel" value="${q.channel}">
<input type="hidden" name="reason" value="${q.reason ?? ''}">
<input type="hidden" name="error" value="${q.error ?? ''}">
${
  plan.permanent === 0
    ? ''
    : plan.permanent === plan.all
      ? html`<input type="hidden" name="permanent" value="1">`
      : html`<div class="field checkbox"><input type="checkbox" id="permanent" name="permanent" value="1"><label for="permanent">${t.includePermanent} (${f.number(plan.permanent)})</label></div>`
}
`,
      })
}`,
    current: 'dead',
  };
}

export async function resendDead(
  context: ConsoleContext,
  signed: Signed,
  { q, include }: z.output<typeof deadResendForm>,
): Promise<Redirect> {
  const plan = await resendPlan(context, q);
  const count = await context.stores.console.requeueDead(q.channel, plan.errors(include));
  await signed.audit({
    subject: q.error ?? q.reason,
    outcome: 'allowed',
    reason: `${q.channel}: ${count}${include ? ', permanent included' : ''}`,
  });
  if (count > 0) context.onResent?.();
  return { redirect: `${CONSOLE_BASE}/dead?${deadFilterQuery(q)}&resent=${count}` };
}

export async function dismissDead(context: ConsoleContext, signed: Signed, message: MessageRef, back: DeadQuery) {
  const { channel, id } = message;
  const dismissed = await context.stores.console.dismissDead(channel, id);
  await signed.audit({
    subject: id,
    outcome: dismissed ? 'allowed' : 'refused',
    reason: dismissed ? channel : 'not_dead',
  });
  const done: Redirect = { redirect: `${CONSOLE_BASE}/dead?${deadFilterQuery(back)}&done=dismissed` };
  return done;
}
