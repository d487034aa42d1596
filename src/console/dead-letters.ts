// Dead letters (docs/console.md#dead-letters): the dead messages of a
// channel, filtered by the error they died of, and Resend for all those
// shown (operators), after a confirmation page that says how many.
import type { Request, Response } from 'express';
import type { OutboxChannel } from '../store';
import type { ConsoleContext, PageHandler } from './context';
import { html } from '../shared/markup';
import { CONSOLE_BASE, redirect } from './respond';
import { lastErrorText, maskErrorText } from './students';
import { allows, csrfField, notice, sendView, type SignedIn, type View } from './view';

const SHOWN = 50;
const ERRORS = 20;
const ERROR_MAX = 2000;

interface DeadQuery {
  readonly channel: OutboxChannel;
  readonly error: string | null;
}

export function deadQuery(source: Record<string, unknown>): DeadQuery {
  const channel: OutboxChannel = source.channel === 'sms' ? 'sms' : 'push';
  const error = typeof source.error === 'string' && source.error !== '' ? source.error.slice(0, ERROR_MAX) : null;
  return { channel, error };
}

const queryString = (q: DeadQuery): string =>
  `channel=${q.channel}${q.error === null ? '' : `&error=${encodeURIComponent(q.error)}`}`;

export async function showDead(context: ConsoleContext, view: View, req: Request, res: Response): Promise<void> {
  const { t, f } = view;
  const q = deadQuery(req.query);
  const store = context.stores.console;
  const [dead, errors] = await Promise.all([
    store.listDead(q.channel, q.error, { limit: SHOWN, offset: 0 }),
    store.deadErrors(q.channel, ERRORS),
  ]);
  const done = typeof req.query.resent === 'string' ? t.resentAll(f.number(Number(req.query.resent) || 0)) : null;
  const canResend = allows((view.session as SignedIn).role, 'operator');
  const tab = (channel: OutboxChannel) =>
    html`<li><a href="${CONSOLE_BASE}/dead?channel=${channel}"${q.channel === channel ? html` aria-current="page"` : ''}>${t.channel[channel]}</a></li>`;
  sendView(
    res,
    view,
    t.deadTitle,
    html`${notice(done)}<nav aria-label="${t.colChannel}"><ul class="tabs">${tab('push')}${tab('sms')}</ul></nav>
<h2>${t.deadErrorsTitle}</h2>
<ul class="errors">
<li><a href="${CONSOLE_BASE}/dead?channel=${q.channel}"${q.error === null ? html` aria-current="true"` : ''}>${t.allErrors}</a></li>
${errors.map(
  (e) =>
    html`<li><a href="${CONSOLE_BASE}/dead?${queryString({ channel: q.channel, error: e.error })}"${q.error === e.error ? html` aria-current="true"` : ''}><bdi class="code">${maskErrorText(e.error)}</bdi></a> (${f.number(e.count)})</li>`,
)}
</ul>
${
  dead.total === 0
    ? html`<p role="status">${t.noDead}</p>`
    : html`<p role="status">${t.shown(f.number(dead.items.length), f.number(dead.total))}</p>
${canResend ? html`<p><a class="button" href="${CONSOLE_BASE}/dead/resend?${queryString(q)}">${t.resendAll(f.number(dead.total))}</a></p>` : ''}
<table class="stack">
<thead><tr><th scope="col">${t.colMessage}</th><th scope="col">${t.colStudent}</th><th scope="col">${t.colGivenUp}</th><th scope="col" class="number">${t.colAttempts}</th><th scope="col">${t.colLastError}</th></tr></thead>
<tbody>${dead.items.map(
        (m) => html`<tr>
<td data-label="${t.colMessage}"><a href="${CONSOLE_BASE}/messages/${encodeURIComponent(q.channel)}/${encodeURIComponent(m.id)}"><bdi class="code">${m.id.slice(0, 8)}</bdi></a></td>
<td data-label="${t.colStudent}">${m.studentId === null ? '–' : html`<a href="${CONSOLE_BASE}/students/${encodeURIComponent(m.studentId)}"><bdi>${m.studentId}</bdi></a>`}</td>
<td data-label="${t.colGivenUp}">${f.time(m.updatedAt)}</td>
<td data-label="${t.colAttempts}" class="number">${f.number(m.attempts)}</td>
<td data-label="${t.colLastError}">${lastErrorText(view, m.lastError)}</td>
</tr>`,
      )}</tbody></table>`
}`,
    { current: 'dead' },
  );
}

/** The confirmation step, with the count that would be resent. */
export const confirmResendDead: PageHandler = async (context, view, req, res) => {
  const { t, f } = view;
  const q = deadQuery(req.query);
  const { total } = await context.stores.console.listDead(q.channel, q.error, { limit: 1, offset: 0 });
  sendView(
    res,
    view,
    t.resend,
    html`<p>${t.confirmResendAll(f.number(total))}</p>
<form method="post" action="${CONSOLE_BASE}/dead/resend">${csrfField(view)}
<input type="hidden" name="channel" value="${q.channel}">
<input type="hidden" name="error" value="${q.error ?? ''}">
<button type="submit">${t.yesResend}</button> <a href="${CONSOLE_BASE}/dead?${queryString(q)}">${t.cancel}</a></form>`,
    { current: 'dead' },
  );
};

export async function resendDead(context: ConsoleContext, view: View, req: Request, res: Response): Promise<void> {
  const q = deadQuery((req.body ?? {}) as Record<string, unknown>);
  const count = await context.stores.admin.requeueDeadOutboxMessages(q.channel, q.error ?? undefined);
  await context.audit({
    address: req.ip ?? null,
    account: (view.session as SignedIn).account,
    operation: 'resend-dead',
    subject: q.error,
    outcome: 'allowed',
    reason: `${q.channel}: ${count}`,
  });
  if (count > 0) context.onResent?.();
  redirect(res, `${CONSOLE_BASE}/dead?${queryString(q)}&resent=${count}`);
}
