// One message, whole (docs/console.md#one-message): whose it is (the student,
// linked, and the school), where it went (the device and its masked token, or
// the masked phone), what was sent, every attempt to the second with the
// provider's answer explained and the next try; and, for a dead or retrying
// message, Resend (operators) after a confirmation page, through the same
// store function as the admin API's requeue, never for an erased login code.
import { z } from 'zod';
import { explainFailure } from '../shared/failure-explanations';
import { maskPhone } from '../log';
import type { AdminStore, OutboxChannel, RecordOf } from '../store';
import type { ConsoleContext } from './context';
import { statusClass } from './status-style';
import { typeName } from './values';
import { html, type Html } from '../shared/markup';
import { CONSOLE_BASE } from './respond';
import { lastErrorText } from './explain';
import { column, confirmation, stackTable, summaryList } from './partials';
import { pathId, text, type Page, type Redirect, type Signed } from './route-table';
import { maskToken } from './students';
import { allows, notice, titled, type SignedInView } from './view';

const messagePath = (channel: OutboxChannel, id: string) =>
  `${CONSOLE_BASE}/messages/${encodeURIComponent(channel)}/${encodeURIComponent(id)}`;

/** An outbox message's path: its channel and id; another channel is no page. */
export const messageParams = z.object({ channel: z.enum(['push', 'sms']), id: pathId() });
export type MessageRef = z.output<typeof messageParams>;

/** What the resend that sent here did: `done=resent`, or `refused=` and why. */
export const messageQuery = z.object({ done: text(16), refused: text(32) });

type Found = NonNullable<Awaited<ReturnType<AdminStore['getOutboxMessage']>>>;

export interface MessageModel {
  readonly channel: OutboxChannel;
  readonly id: string;
  readonly found: Found;
  readonly attempts: Awaited<ReturnType<ConsoleContext['stores']['console']['listAttempts']>>;
  readonly student: RecordOf<'students'> | null;
  readonly device: RecordOf<'devices'> | null;
  readonly school: RecordOf<'schools'> | null;
  /** The time the page is drawn at (for "in 35 s"). */
  readonly now: number;
  readonly query: z.output<typeof messageQuery>;
}

/** One message, whole, audited as a read of its student's; null when there is no such message. */
export async function loadMessage(
  context: ConsoleContext,
  signed: Signed,
  { channel, id }: MessageRef,
  query: z.output<typeof messageQuery>,
): Promise<MessageModel | null> {
  const admin = context.stores.admin;
  const found = await admin.getOutboxMessage(channel, id);
  if (found === null) return null;
  const push = found.channel === 'push' ? found.item : null;
  const [attempts, student, device] = await Promise.all([
    context.stores.console.listAttempts(channel, id),
    push === null ? null : admin.getRecord('students', push.studentId),
    push === null ? null : admin.getRecord('devices', push.deviceId),
  ]);
  const school = student === null ? null : await admin.getRecord('schools', student.school);
  const studentId = push?.studentId ?? null;
  await signed.audit({
    subjectKind: studentId === null ? null : 'student',
    subject: studentId,
    outcome: 'allowed',
  });
  return { channel, id, found, attempts, student, device, school, now: context.now().getTime(), query };
}

export function messagePage(view: SignedInView, model: MessageModel | null): Page {
  const { t, f, times } = view;
  if (model === null) return { title: t.notFoundTitle, main: html`<p>${t.messageMissing}</p>`, status: 404 };
  const { channel, id, found, attempts, student, device, school, now, query } = model;
  const push = found.channel === 'push' ? found.item : null;
  const sms = found.channel === 'sms' ? found.item : null;
  const message = found.item;
  const studentId = push?.studentId ?? null;
  const explanation = explainFailure(channel, message.lastError);
  const erased = sms !== null && sms.code === null;
  const resendable =
    (message.status === 'dead' || message.status === 'failed') && allows(view.session.role, 'operator') && !erased;
  const done = query.done === 'resent' ? t.resent : null;
  const refused = query.refused === undefined ? null : (t.resendRefused[query.refused] ?? null);
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
      ? html`${t.device} <bdi class="code">${push.deviceId}</bdi>${
          device === null
            ? html` · <span class="alert">${t.noDevice}</span>`
            : html` · ${t.pushToken} ${
                device.token === null || device.token === undefined
                  ? html`<span class="alert">${t.noToken}</span>`
                  : html`<bdi class="code">${maskToken(device.token)}</bdi>`
              }`
        }`
      : html`${t.phone} <bdi class="code" dir="ltr">${maskedPhone}</bdi>`;
  const resendBlock = resendable
    ? html`${
        explanation?.permanent === true
          ? html`<p class="due alert">${t.permanentFirst(explanation[view.lang].todo)}</p>`
          : ''
      }<p><a class="button secondary" href="${messagePath(channel, id)}/resend">${t.resend}</a></p>`
    : erased && message.status === 'dead'
      ? html`<p class="due">${t.codeErased}</p>`
      : '';
  const attemptsTable = stackTable(
    attempts,
    [
      column(t.colAttempt, (a) => f.number(a.attempt), true),
      column(t.colTime, (a) => times.atSecond(a.at)),
      column(t.colOutcome, (a) => t.outcome[a.outcome] ?? a.outcome),
      column(t.colCode, (a) => html`<bdi class="code">${a.code ?? '–'}</bdi>`),
      column(t.colExplanation, (a) =>
        a.error === null && a.code === null ? '–' : lastErrorText(view, channel, a.error, { code: a.code }),
      ),
      column(t.nextTry, (a) => (a.outcome === 'failed' ? nextAttempt(a.nextAttemptAt) : '–')),
    ],
    { empty: t.noAttempts },
  );
  return {
    title,
    main: html`${notice(done)}${refused === null ? '' : html`<div class="error-summary" role="alert"><p>${refused}</p></div>`}
${summaryList([
  [
    t.colStatus,
    html`<span class="${statusClass(message.status)}" id="message-status">${t.status[message.status]}</span>`,
  ],
  push !== null &&
    push.heldUntil !== null && [t.colHeldUntil, html`<span id="held-until">${times.atSecond(push.heldUntil)}</span>`],
  studentId !== null && [t.colStudent, studentLink],
  push !== null && [t.colSchool, html`<bdi>${school?.name ?? push.schoolKey ?? student?.school ?? '–'}</bdi>`],
  [t.colType, push === null ? t.loginCode : html`<bdi>${typeName(view, push.type)}</bdi>`],
  [t.recipientLabel, recipient],
  push !== null && [t.sentTitle, html`<bdi>${push.title}</bdi>`],
  [t.sentText, push !== null ? html`<bdi class="sent-text">${push.body}</bdi>` : t.smsTextHidden],
  [t.colChannelName, t.channel[channel]],
  [t.colId, html`<bdi class="code">${id}</bdi>`],
  [t.colQueued, times.atSecond(message.createdAt)],
  [t.colAttempts, f.number(message.attempts)],
  [t.nextTry, pending ? nextAttempt(message.nextAttemptAt) : '–'],
  [t.colSentAt, times.atSecond(message.sentAt)],
  [t.colLastError, lastErrorText(view, channel, message.lastError)],
])}
${resendBlock}
<h2>${t.attemptsTitle}</h2>
${attemptsTable}`,
  };
}

/** The confirmation step: one question on its own page. */
export function confirmResendPage(view: SignedInView, { channel, id }: MessageRef): Page {
  const { t } = view;
  return {
    title: t.resend,
    main: confirmation(view, {
      question: html`<p>${t.confirmResend}</p>`,
      action: `${messagePath(channel, id)}/resend`,
      yes: t.yesResend,
      back: messagePath(channel, id),
    }),
  };
}

/** Queues the message again, through the admin API's requeue; refused for one that cannot be (an erased code). */
export async function resend(context: ConsoleContext, signed: Signed, { channel, id }: MessageRef): Promise<Redirect> {
  const result = await context.stores.admin.requeueOutboxMessage(channel, id);
  await signed.audit({
    subject: id,
    outcome: result === 'requeued' ? 'allowed' : 'refused',
    reason: result === 'requeued' ? `${channel}` : result,
  });
  if (result === 'requeued') context.onResent?.();
  return { redirect: `${messagePath(channel, id)}?${result === 'requeued' ? 'done=resent' : `refused=${result}`}` };
}
