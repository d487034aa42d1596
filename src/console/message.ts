// One message, whole (docs/console.md#one-message): whose it is (the student,
// linked, and the school), where it went (the device and its masked token, or
// the masked phone), what was sent, every attempt to the second with the
// provider's answer explained and the next try; and, for a dead or retrying
// message, Resend (operators) after a confirmation page, through the same
// store function as the admin API's requeue, never for an erased login code.
import type { Request, Response } from 'express';
import { explainFailure } from '../shared/failure-explanations';
import { maskPhone } from '../log';
import type { OutboxChannel } from '../store';
import type { ConsoleContext } from './context';
import { statusClass } from './status-style';
import { typeName } from './values';
import { html, type Html } from '../shared/markup';
import { CONSOLE_BASE, redirect } from './respond';
import { lastErrorText } from './explain';
import { maskToken } from './students';
import { allows, csrfField, notice, sendView, titled, type SignedInView } from './view';

export const isChannel = (value: string): value is OutboxChannel => value === 'push' || value === 'sms';
/** A console action on one outbox message, named by its channel and id (the routes in src/console/index.ts). */
export type MessageAction = (
  context: ConsoleContext,
  view: SignedInView,
  req: Request,
  res: Response,
  channel: OutboxChannel,
  id: string,
) => Promise<void>;
const messagePath = (channel: OutboxChannel, id: string) =>
  `${CONSOLE_BASE}/messages/${encodeURIComponent(channel)}/${encodeURIComponent(id)}`;

export const showMessage: MessageAction = async (context, view, req, res, channel, id) => {
  const { t, f, times } = view;
  const session = view.session;
  const admin = context.stores.admin;
  const found = await admin.getOutboxMessage(channel, id);
  if (found === null) {
    sendView(res, view, t.notFoundTitle, html`<p>${t.messageMissing}</p>`, { status: 404 });
    return;
  }
  const push = found.channel === 'push' ? found.item : null;
  const sms = found.channel === 'sms' ? found.item : null;
  const [attempts, student, device] = await Promise.all([
    context.stores.console.listAttempts(channel, id),
    push === null ? null : admin.getRecord('students', push.studentId),
    push === null ? null : admin.getRecord('devices', push.deviceId),
  ]);
  const school = student === null ? null : await admin.getRecord('schools', student.school);
  const message = found.item;
  const studentId = push?.studentId ?? null;
  await context.audit({
    address: req.ip ?? null,
    account: session.account,
    operation: 'message',
    subjectKind: studentId === null ? null : 'student',
    subject: studentId,
    outcome: 'allowed',
  });
  const now = context.now().getTime();
  const explanation = explainFailure(channel, message.lastError);
  const erased = sms !== null && sms.code === null;
  const resendable =
    (message.status === 'dead' || message.status === 'failed') && allows(session.role, 'operator') && !erased;
  const done = req.query.done === 'resent' ? t.resent : null;
  const refused = typeof req.query.refused === 'string' ? (t.resendRefused[req.query.refused] ?? null) : null;
  const maskedPhone = sms === null ? '' : maskPhone(sms.phone);
  const title =
    push === null
      ? t.smsTitle(maskedPhone)
      : titled((name) => t.pushTitle(typeName(view, push.type), name), student?.fullName ?? push.studentId);
  const pending = message.status === 'queued' || message.status === 'failed';
  const nextAttempt = (iso: string | null): Html | string =>
    iso === null ? '–' : html`${times.atSecond(iso)} (${times.relative(iso, now)})`;
  const studentLink =
    studentId === null
      ? ''
      : html`<a href="${CONSOLE_BASE}/students/${encodeURIComponent(studentId)}"><bdi>${student?.fullName ?? studentId}</bdi></a> <bdi class="code muted">${studentId}</bdi>`;
  const recipient =
    push !== null
      ? html`<div><dt>${t.recipientLabel}</dt><dd>${t.device} <bdi class="code">${push.deviceId}</bdi>${
          device === null
            ? html` · <span class="alert">${t.noDevice}</span>`
            : html` · ${t.pushToken} ${
                device.token === null || device.token === undefined
                  ? html`<span class="alert">${t.noToken}</span>`
                  : html`<bdi class="code">${maskToken(device.token)}</bdi>`
              }`
        }</dd></div>`
      : html`<div><dt>${t.recipientLabel}</dt><dd>${t.phone} <bdi class="code" dir="ltr">${maskedPhone}</bdi></dd></div>`;
  const what =
    push !== null
      ? html`<div><dt>${t.sentTitle}</dt><dd><bdi>${push.title}</bdi></dd></div>
<div><dt>${t.sentText}</dt><dd><bdi class="sent-text">${push.body}</bdi></dd></div>`
      : html`<div><dt>${t.sentText}</dt><dd>${t.smsTextHidden}</dd></div>`;
  const resendBlock = resendable
    ? html`${
        explanation?.permanent === true
          ? html`<p class="due alert">${t.permanentFirst(explanation[view.lang].todo)}</p>`
          : ''
      }<p><a class="button secondary" href="${messagePath(channel, id)}/resend">${t.resend}</a></p>`
    : erased && message.status === 'dead'
      ? html`<p class="due">${t.codeErased}</p>`
      : '';
  sendView(
    res,
    view,
    title,
    html`${notice(done)}${refused === null ? '' : html`<div class="error-summary" role="alert"><p>${refused}</p></div>`}
<dl class="summary-list">
<div><dt>${t.colStatus}</dt><dd><span class="${statusClass(message.status)}" id="message-status">${t.status[message.status]}</span></dd></div>
${
  push !== null && push.heldUntil !== null
    ? html`<div><dt>${t.colHeldUntil}</dt><dd id="held-until">${times.atSecond(push.heldUntil)}</dd></div>`
    : ''
}
${studentId === null ? '' : html`<div><dt>${t.colStudent}</dt><dd>${studentLink}</dd></div>`}
${push === null ? '' : html`<div><dt>${t.colSchool}</dt><dd><bdi>${school?.name ?? push.schoolKey ?? student?.school ?? '–'}</bdi></dd></div>`}
<div><dt>${t.colType}</dt><dd>${push === null ? t.loginCode : html`<bdi>${typeName(view, push.type)}</bdi>`}</dd></div>
${recipient}
${what}
<div><dt>${t.colChannelName}</dt><dd>${t.channel[channel]}</dd></div>
<div><dt>${t.colId}</dt><dd><bdi class="code">${id}</bdi></dd></div>
<div><dt>${t.colQueued}</dt><dd>${times.atSecond(message.createdAt)}</dd></div>
<div><dt>${t.colAttempts}</dt><dd>${f.number(message.attempts)}</dd></div>
<div><dt>${t.nextTry}</dt><dd>${pending ? nextAttempt(message.nextAttemptAt) : '–'}</dd></div>
<div><dt>${t.colSentAt}</dt><dd>${times.atSecond(message.sentAt)}</dd></div>
<div><dt>${t.colLastError}</dt><dd>${lastErrorText(view, channel, message.lastError)}</dd></div>
</dl>
${resendBlock}
<h2>${t.attemptsTitle}</h2>
${
  attempts.length === 0
    ? html`<p>${t.noAttempts}</p>`
    : html`<table class="stack">
<thead><tr><th scope="col" class="number">${t.colAttempt}</th><th scope="col">${t.colTime}</th><th scope="col">${t.colOutcome}</th><th scope="col">${t.colCode}</th><th scope="col">${t.colExplanation}</th><th scope="col">${t.nextTry}</th></tr></thead>
<tbody>${attempts.map(
        (a) => html`<tr>
<td data-label="${t.colAttempt}" class="number">${f.number(a.attempt)}</td>
<td data-label="${t.colTime}">${times.atSecond(a.at)}</td>
<td data-label="${t.colOutcome}">${t.outcome[a.outcome] ?? a.outcome}</td>
<td data-label="${t.colCode}"><bdi class="code">${a.code ?? '–'}</bdi></td>
<td data-label="${t.colExplanation}">${a.error === null && a.code === null ? '–' : lastErrorText(view, channel, a.error, { code: a.code })}</td>
<td data-label="${t.nextTry}">${a.outcome === 'failed' ? nextAttempt(a.nextAttemptAt) : '–'}</td>
</tr>`,
      )}</tbody></table>`
}`,
  );
};

/** The confirmation step: one question on its own page. */
export function confirmResend(view: SignedInView, res: Response, channel: OutboxChannel, id: string): void {
  const { t } = view;
  sendView(
    res,
    view,
    t.resend,
    html`<p>${t.confirmResend}</p>
<form method="post" action="${messagePath(channel, id)}/resend">${csrfField(view)}<button type="submit">${t.yesResend}</button> <a href="${messagePath(channel, id)}">${t.cancel}</a></form>`,
  );
}

export const resend: MessageAction = async (context, view, req, res, channel, id) => {
  const session = view.session;
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
