// One message (docs/console.md#one-message): what was queued, every attempt
// with the provider's answer and the masked error, the next attempt; and,
// for a dead or retrying message, Resend (operators) after a confirmation
// page, through the same store function as the admin API's requeue.
import type { Response } from 'express';
import type { OutboxChannel } from '../store';
import type { PageHandler } from './context';
import { statusClass } from './status-style';
import { typeName } from './values';
import { html } from '../shared/markup';
import { CONSOLE_BASE, redirect } from './respond';
import { lastErrorText, maskErrorText } from './students';
import { allows, csrfField, notice, sendView, type SignedIn, type View } from './view';

export const isChannel = (value: string): value is OutboxChannel => value === 'push' || value === 'sms';
/** A page of one message, named by its channel and id in the path. */
type MessageHandler = PageHandler<[channel: OutboxChannel, id: string]>;

const messagePath = (channel: OutboxChannel, id: string) =>
  `${CONSOLE_BASE}/messages/${encodeURIComponent(channel)}/${encodeURIComponent(id)}`;

export const showMessage: MessageHandler = async (context, view, req, res, channel, id) => {
  const { t, f } = view;
  const session = view.session as SignedIn;
  const found = await context.stores.admin.getOutboxMessage(channel, id);
  if (found === null) {
    sendView(res, view, t.notFoundTitle, html`<p>${t.messageMissing}</p>`, { status: 404 });
    return;
  }
  const attempts = await context.stores.console.listAttempts(channel, id);
  const message = found.item;
  const studentId = found.channel === 'push' ? found.item.studentId : null;
  await context.audit({
    address: req.ip ?? null,
    account: session.account,
    operation: 'message',
    subjectKind: studentId === null ? null : 'student',
    subject: studentId,
    outcome: 'allowed',
  });
  const resendable = (message.status === 'dead' || message.status === 'failed') && allows(session.role, 'operator');
  const done = req.query.done === 'resent' ? t.resent : null;
  const refused = typeof req.query.refused === 'string' ? (t.resendRefused[req.query.refused] ?? null) : null;
  sendView(
    res,
    view,
    `${t.messageTitle} ${id.slice(0, 8)}`,
    html`${notice(done)}${refused === null ? '' : html`<div class="error-summary" role="alert"><p>${refused}</p></div>`}
${studentId === null ? '' : html`<p><a href="${CONSOLE_BASE}/students/${encodeURIComponent(studentId)}">${t.back}</a></p>`}
<dl class="summary-list">
<div><dt>${t.colId}</dt><dd><bdi class="code">${id}</bdi></dd></div>
<div><dt>${t.colChannelName}</dt><dd>${t.channel[channel]}</dd></div>
${found.channel === 'push' ? html`<div><dt>${t.colType}</dt><dd><bdi>${typeName(view, found.item.type)}</bdi></dd></div>` : ''}
<div><dt>${t.colQueued}</dt><dd>${f.time(message.createdAt)}</dd></div>
<div><dt>${t.colStatus}</dt><dd><span class="${statusClass(message.status)}" id="message-status">${t.status[message.status]}</span></dd></div>
${
  found.channel === 'push' && found.item.heldUntil !== null
    ? html`<div><dt>${t.colHeldUntil}</dt><dd id="held-until">${f.time(found.item.heldUntil)}</dd></div>`
    : ''
}
<div><dt>${t.colAttempts}</dt><dd>${f.number(message.attempts)}</dd></div>
<div><dt>${t.colNextAttempt}</dt><dd>${message.status === 'queued' || message.status === 'failed' ? f.time(message.nextAttemptAt) : '–'}</dd></div>
<div><dt>${t.colSentAt}</dt><dd>${f.time(message.sentAt)}</dd></div>
<div><dt>${t.colLastError}</dt><dd>${lastErrorText(view, message.lastError)}</dd></div>
</dl>
${resendable ? html`<p><a class="button" href="${messagePath(channel, id)}/resend">${t.resend}</a></p>` : ''}
<h2>${t.attemptsTitle}</h2>
${
  attempts.length === 0
    ? html`<p>${t.noAttempts}</p>`
    : html`<table class="stack">
<thead><tr><th scope="col" class="number">${t.colAttempt}</th><th scope="col">${t.colTime}</th><th scope="col">${t.colOutcome}</th><th scope="col">${t.colCode}</th><th scope="col">${t.colError}</th><th scope="col">${t.colNextAttempt}</th></tr></thead>
<tbody>${attempts.map(
        (a) => html`<tr>
<td data-label="${t.colAttempt}" class="number">${f.number(a.attempt)}</td>
<td data-label="${t.colTime}">${f.time(a.at)}</td>
<td data-label="${t.colOutcome}">${t.outcome[a.outcome] ?? a.outcome}</td>
<td data-label="${t.colCode}"><bdi class="code">${a.code ?? '–'}</bdi></td>
<td data-label="${t.colError}">${a.error === null ? '–' : html`<bdi class="code">${maskErrorText(a.error)}</bdi>`}</td>
<td data-label="${t.colNextAttempt}">${f.time(a.nextAttemptAt)}</td>
</tr>`,
      )}</tbody></table>`
}`,
  );
};

/** The confirmation step: one question on its own page. */
export function confirmResend(view: View, res: Response, channel: OutboxChannel, id: string): void {
  const { t } = view;
  sendView(
    res,
    view,
    t.resend,
    html`<p>${t.confirmResend}</p>
<form method="post" action="${messagePath(channel, id)}/resend">${csrfField(view)}<button type="submit">${t.yesResend}</button> <a href="${messagePath(channel, id)}">${t.cancel}</a></form>`,
  );
}

export const resend: MessageHandler = async (context, view, req, res, channel, id) => {
  const session = view.session as SignedIn;
  const result = await context.stores.admin.requeueOutboxMessage(channel, id);
  await context.audit({
    address: req.ip ?? null,
    account: session.account,
    operation: 'resend',
    subject: id,
    outcome: result === 'requeued' ? 'allowed' : 'refused',
    reason: result === 'requeued' ? `${channel}` : result,
  });
  if (result === 'requeued') context.onResent?.();
  redirect(res, `${messagePath(channel, id)}?${result === 'requeued' ? 'done=resent' : `refused=${result}`}`);
};
