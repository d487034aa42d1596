// Dead letters (docs/console.md#dead-letters): the dead messages of a
// channel, the latest given up first, a page at a time by their key; grouped
// by what their failure means and who must act (src/shared/failure-explanations.ts),
// filtered by that or by the exact error; each can be dismissed (kept,
// audited, out of the list). Resending the messages shown (operators) is a
// secondary action whose confirmation page restates the filter and the
// count, and leaves out the failures that need a change first unless asked.
import type { Request, Response } from 'express';
import { explainFailure, explanationByKey, type Explanation } from '../shared/failure-explanations';
import type { DeadCursor, OutboxChannel } from '../store';
import type { ConsoleContext } from './context';
import { html } from '../shared/markup';
import { CONSOLE_BASE, redirect } from './respond';
import { explanationText, lastErrorText, maskErrorText } from './explain';
import { pagerOf } from './partials';
import { allows, csrfField, errorSummary, notice, sendView, type SignedInView } from './view';
import type { MessageAction } from './message';

const PAGE_SIZE = 50;
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

const one = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

export function deadQuery(source: Record<string, unknown>): DeadQuery {
  let invalid = false;
  const channel: OutboxChannel = source.channel === 'sms' ? 'sms' : 'push';
  const reasonText = one(source.reason);
  const reason = reasonText === null ? null : (explanationByKey(reasonText.slice(0, 64))?.key ?? null);
  if (reasonText !== null && reason === null) invalid = true;
  const error = one(source.error)?.slice(0, ERROR_MAX) ?? null;
  const cursorOf = (name: 'before' | 'after'): DeadCursor | undefined => {
    const value = source[name];
    if (value === undefined) return undefined;
    const match = typeof value === 'string' ? CURSOR.exec(value) : null;
    if (match === null) {
      invalid = true;
      return undefined;
    }
    return { updatedAt: match[1] ?? '', id: match[2] ?? '' };
  };
  const before = cursorOf('before');
  const after = cursorOf('after');
  return {
    channel,
    reason,
    error,
    dismissed: source.dismissed === '1',
    ...(before === undefined ? {} : { before }),
    ...(after === undefined ? {} : { after }),
    invalid,
  };
}

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

export async function showDead(
  context: ConsoleContext,
  view: SignedInView,
  req: Request,
  res: Response,
): Promise<void> {
  const { t, f, times } = view;
  const q = deadQuery(req.query);
  const store = context.stores.console;
  const groups = await groupsOf(context, q.channel, q.dismissed);
  const list = q.invalid
    ? null
    : await store.listDead(
        q.channel,
        { errors: errorsOf(q, groups), dismissed: q.dismissed },
        {
          limit: PAGE_SIZE,
          ...(q.before === undefined ? {} : { before: q.before }),
          ...(q.after === undefined ? {} : { after: q.after }),
        },
      );
  const done =
    typeof req.query.resent === 'string'
      ? t.resentAll(f.number(Number(req.query.resent) || 0))
      : req.query.done === 'dismissed'
        ? t.dismissedNote
        : null;
  const canAct = allows(view.session.role, 'operator');
  const filter = deadFilterQuery(q);
  const here = (extra: Partial<DeadQuery>) => `${CONSOLE_BASE}/dead?${deadFilterQuery({ ...q, ...extra })}`;
  const tab = (channel: OutboxChannel) =>
    html`<li><a href="${CONSOLE_BASE}/dead?channel=${channel}"${q.channel === channel ? html` aria-current="page"` : ''}>${t.channel[channel]}</a></li>`;
  const pager = pagerOf(view, t.deadPager, `${CONSOLE_BASE}/dead`, filter, list, cursorParam);
  const rows = (list?.items ?? []).map(
    (m) => html`<tr>
<td data-label="${t.colMessage}"><a href="${CONSOLE_BASE}/messages/${encodeURIComponent(q.channel)}/${encodeURIComponent(m.id)}"><bdi class="code">${m.id.slice(0, 8)}</bdi></a></td>
<td data-label="${t.colStudent}">${m.studentId === null ? '–' : html`<a href="${CONSOLE_BASE}/students/${encodeURIComponent(m.studentId)}"><bdi>${m.studentId}</bdi></a>`}</td>
<td data-label="${t.colGivenUp}">${times.atSecond(m.updatedAt)}</td>
<td data-label="${t.colAttempts}" class="number">${f.number(m.attempts)}</td>
<td data-label="${t.colLastError}">${lastErrorText(view, q.channel, m.lastError)}${m.erased ? html`<br><span class="muted">${t.codeErased}</span>` : ''}</td>
<td data-label="${t.dismiss}">${
      m.dismissedAt !== null
        ? html`${t.dismissedAt} ${times.at(m.dismissedAt)}`
        : canAct
          ? html`<form class="inline" method="post" action="${CONSOLE_BASE}/dead/${q.channel}/${encodeURIComponent(m.id)}/dismiss">${csrfField(view)}<input type="hidden" name="back" value="${filter}"><button type="submit" class="secondary">${t.dismiss}</button></form>`
          : '–'
    }</td>
</tr>`,
  );
  sendView(
    res,
    view,
    t.deadTitle,
    html`${notice(done)}${q.invalid ? errorSummary(view, [{ text: t.badCursor }]) : ''}<nav aria-label="${t.colChannel}"><ul class="tabs">${tab('push')}${tab('sms')}</ul></nav>
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
<table class="stack">
<thead><tr><th scope="col">${t.colMessage}</th><th scope="col">${t.colStudent}</th><th scope="col">${t.colGivenUp}</th><th scope="col" class="number">${t.colAttempts}</th><th scope="col">${t.colLastError}</th><th scope="col">${t.dismiss}</th></tr></thead>
<tbody>${rows}</tbody></table>
${pager}`
}`,
    { current: 'dead', status: q.invalid ? 400 : 200 },
  );
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

/** The confirmation step: the filter restated, the count, and whether the permanent failures are included. */
export async function confirmResendDead(
  context: ConsoleContext,
  view: SignedInView,
  req: Request,
  res: Response,
): Promise<void> {
  const { t, f } = view;
  const q = deadQuery(req.query);
  const plan = await resendPlan(context, q);
  const reason = q.reason === null ? null : explanationByKey(q.reason);
  const back = `${CONSOLE_BASE}/dead?${deadFilterQuery(q)}`;
  sendView(
    res,
    view,
    t.resend,
    html`<p>${t.filterRestated}</p>
<dl class="summary-list">
<div><dt>${t.filterChannel}</dt><dd>${t.channel[q.channel]}</dd></div>
<div><dt>${t.filterReason}</dt><dd>${reason === null ? t.allReasons : reason[view.lang].what}</dd></div>
${q.error === null ? '' : html`<div><dt>${t.lastErrorFilter}</dt><dd><bdi class="code">${maskErrorText(q.error)}</bdi></dd></div>`}
<div><dt>${t.colStatus}</dt><dd>${t.status.dead}</dd></div>
<div><dt>${t.matching}</dt><dd>${f.number(plan.all)}</dd></div>
<div><dt>${t.filterPermanent}</dt><dd>${f.number(plan.permanent)} (${t.permanentExcluded})</dd></div>
</dl>
${
  plan.all === 0
    ? html`<p role="status">${t.noneToResend}</p><p><a href="${back}">${t.back}</a></p>`
    : html`<p>${
        plan.permanent === 0
          ? t.confirmResendFiltered(f.number(plan.all))
          : t.confirmResendSome(f.number(plan.all - plan.permanent), f.number(plan.all))
      }</p>
<form method="post" action="${CONSOLE_BASE}/dead/resend">${csrfField(view)}
<input type="hidden" name="channel" value="${q.channel}">
<input type="hidden" name="reason" value="${q.reason ?? ''}">
<input type="hidden" name="error" value="${q.error ?? ''}">
${
  plan.permanent === 0
    ? ''
    : html`<div class="field checkbox"><input type="checkbox" id="permanent" name="permanent" value="1"><label for="permanent">${t.includePermanent} (${f.number(plan.permanent)})</label></div>`
}
<button type="submit">${t.yesResend}</button> <a href="${back}">${t.cancel}</a></form>`
}`,
    { current: 'dead' },
  );
}

export async function resendDead(
  context: ConsoleContext,
  view: SignedInView,
  req: Request,
  res: Response,
): Promise<void> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const q = deadQuery({ ...body, dismissed: undefined, before: undefined, after: undefined });
  const include = body.permanent === '1';
  const plan = await resendPlan(context, q);
  const count = await context.stores.console.requeueDead(q.channel, plan.errors(include));
  await context.audit({
    address: req.ip ?? null,
    account: view.session.account,
    operation: 'resend-dead',
    subject: q.error ?? q.reason,
    outcome: 'allowed',
    reason: `${q.channel}: ${count}${include ? ', permanent included' : ''}`,
  });
  if (count > 0) context.onResent?.();
  redirect(res, `${CONSOLE_BASE}/dead?${deadFilterQuery(q)}&resent=${count}`);
}

export const dismissDead: MessageAction = async (context, view, req, res, channel, id) => {
  const dismissed = await context.stores.console.dismissDead(channel, id);
  await context.audit({
    address: req.ip ?? null,
    account: view.session.account,
    operation: 'dismiss-dead',
    subject: id,
    outcome: dismissed ? 'allowed' : 'refused',
    reason: dismissed ? channel : 'not_dead',
  });
  const body = (req.body ?? {}) as Record<string, unknown>;
  // The list's filter to go back to (never its page: the row is gone from it).
  const back = deadQuery(
    Object.fromEntries(new URLSearchParams(typeof body.back === 'string' ? body.back.slice(0, 3000) : '')),
  );
  redirect(res, `${CONSOLE_BASE}/dead?${deadFilterQuery(back)}&done=dismissed`);
};
