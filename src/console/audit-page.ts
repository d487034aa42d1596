// The audit trail page (docs/console.md#audit-trail): the trail the admin API
// lists, newest first, a page at a time by its key (time, id), filtered by
// caller, operation (a list), student, outcome and a time range in the
// operator's zone. The filters are checked by the admin API's own rules
// (AuditListQuery) and listed by the same store function.
import { isIP } from 'node:net';
import type { Request, Response } from 'express';
import { AuditListQuery } from '../admin';
import { OPERATION_TRAITS } from '../contract';
import type { AuditCursor } from '../store';
import type { ConsoleContext } from './context';
import { auditWhere } from './values';
import { issueText } from './validation';
import { html } from '../shared/markup';
import { CONSOLE_BASE } from './respond';
import { zonedToUtc } from './times';
import { keysetPager } from './partials';
import { errorSummary, sendView, type View } from './view';

const SHOWN = 100;
const CURSOR = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z)_([\w-]{1,64})$/;

/** The console's own operations in the trail (docs/console.md#audit), for the operation filter's list. */
const CONSOLE_OPERATIONS = [
  'sign-in',
  'sign-out',
  'account-add',
  'account-update',
  'account-role',
  'account-disable',
  'account-enable',
  'account-remove',
  'student-search',
  'student',
  'reveal-token',
  'message',
  'messages',
  'messages-export',
  'resend',
  'resend-dead',
  'dismiss-dead',
  'school',
  'student-edit',
  'school-edit',
  'device-edit',
  'import-check',
  'import-apply',
  'import-report',
  'preferences',
] as const;

const text = (value: unknown, max: number): string => (typeof value === 'string' ? value.trim().slice(0, max) : '');

export async function showAudit(context: ConsoleContext, view: View, req: Request, res: Response): Promise<void> {
  const { t, f, times } = view;
  const form = {
    caller: text(req.query.caller, 128),
    operation: text(req.query.operation, 128),
    student: text(req.query.student, 512),
    outcome: text(req.query.outcome, 16),
    from: text(req.query.from, 40),
    to: text(req.query.to, 40),
  };
  // The times typed are the operator's zone's; a value that is not a time is left for the rules to name.
  const instant = (value: string): string => zonedToUtc(value, times.zone) ?? value;
  const filters = {
    ...(form.caller === '' ? {} : isIP(form.caller) !== 0 ? { address: form.caller } : { user: form.caller }),
    ...(form.operation === '' ? {} : { operation: form.operation }),
    ...(form.student === '' ? {} : { subject: form.student }),
    ...(form.outcome === '' ? {} : { outcome: form.outcome }),
    ...(form.from === '' ? {} : { from: instant(form.from) }),
    ...(form.to === '' ? {} : { to: instant(form.to) }),
  };
  const parsed = AuditListQuery.safeParse(filters);
  const fieldOf: Readonly<Record<string, { id: string; label: string }>> = {
    user: { id: 'caller', label: t.caller },
    address: { id: 'caller', label: t.caller },
    operation: { id: 'operation', label: t.operation },
    subject: { id: 'student', label: t.studentId },
    outcome: { id: 'outcome', label: t.outcomeLabel },
    from: { id: 'from', label: t.fromTime(times.zone) },
    to: { id: 'to', label: t.toTime(times.zone) },
  };
  const problems: { field?: string; text: string }[] = parsed.success
    ? []
    : parsed.error.issues.map((issue) => {
        const field = fieldOf[String(issue.path[0])] ?? { id: 'caller', label: t.caller };
        return { field: field.id, text: t.invalidField(field.label, issueText(view, issue)) };
      });
  const cursorOf = (name: 'before' | 'after'): AuditCursor | undefined => {
    const value = req.query[name];
    if (value === undefined) return undefined;
    const match = typeof value === 'string' ? CURSOR.exec(value) : null;
    if (match === null) {
      problems.push({ text: t.badCursor });
      return undefined;
    }
    return { at: match[1] ?? '', id: match[2] ?? '' };
  };
  const before = cursorOf('before');
  const after = cursorOf('after');
  // One row past the page says whether there is another page that way.
  const found =
    parsed.success && problems.length === 0
      ? await context.stores.admin.listAuditEntries({
          ...parsed.data,
          limit: SHOWN + 1,
          offset: 0,
          ...(before === undefined ? {} : { before }),
          ...(after === undefined ? {} : { after }),
        })
      : null;
  const more = found !== null && found.items.length > SHOWN;
  const items = found === null ? [] : after !== undefined && more ? found.items.slice(1) : found.items.slice(0, SHOWN);
  const cursor = (e: { at: string; id: string } | undefined) => (e === undefined ? null : `${e.at}_${e.id}`);
  const query = new URLSearchParams(Object.entries(form).filter(([, value]) => value !== '')).toString();
  const hasNewer = after !== undefined ? more : before !== undefined;
  const hasOlder = after !== undefined ? true : more;
  const pager = keysetPager(
    view,
    t.auditPager,
    `${CONSOLE_BASE}/audit`,
    query,
    hasNewer ? cursor(items[0]) : null,
    hasOlder ? cursor(items[items.length - 1]) : null,
  );
  const invalid = (id: string) => (problems.some((p) => p.field === id) ? html` aria-invalid="true"` : '');
  const option = (value: string, label: string) =>
    html`<option value="${value}"${form.outcome === value ? html` selected` : ''}>${label}</option>`;
  const operationOption = (value: string) =>
    html`<option value="${value}"${form.operation === value ? html` selected` : ''}>${value}</option>`;
  const known = [...CONSOLE_OPERATIONS, ...Object.keys(OPERATION_TRAITS)] as string[];
  sendView(
    res,
    view,
    t.auditTitle,
    html`${errorSummary(view, problems)}
<form class="filters" method="get" action="${CONSOLE_BASE}/audit">
<div class="field"><label for="caller">${t.caller}</label><p class="hint" id="caller-hint">${t.callerHint}</p><input id="caller" name="caller" type="text" dir="ltr" maxlength="128" aria-describedby="caller-hint" value="${form.caller}"${invalid('caller')}></div>
<div class="field"><label for="operation">${t.operation}</label><select id="operation" name="operation" dir="ltr"${invalid('operation')}><option value="">${t.anyOperation}</option><optgroup label="${t.consoleOperations}">${CONSOLE_OPERATIONS.map(operationOption)}</optgroup><optgroup label="${t.serviceOperations}">${Object.keys(OPERATION_TRAITS).map(operationOption)}</optgroup>${
      form.operation !== '' && !known.includes(form.operation) ? operationOption(form.operation) : ''
    }</select></div>
<div class="field"><label for="student">${t.studentId}</label><input id="student" name="student" type="text" dir="auto" maxlength="512" value="${form.student}"${invalid('student')}></div>
<div class="field"><label for="outcome">${t.outcomeLabel}</label><select id="outcome" name="outcome">${option('', t.anyOutcome)}${option('allowed', t.allowed)}${option('refused', t.refused)}</select></div>
<div class="field"><label for="from">${t.fromTime(times.zone)}</label><input id="from" name="from" type="datetime-local" value="${form.from}"${invalid('from')}></div>
<div class="field"><label for="to">${t.toTime(times.zone)}</label><input id="to" name="to" type="datetime-local" value="${form.to}"${invalid('to')}></div>
<button type="submit">${t.filter}</button>
</form>
${
  found === null
    ? ''
    : found.total === 0
      ? html`<p role="status">${t.noEntries}</p>`
      : html`<p role="status">${t.auditShown(f.number(items.length), f.number(found.total))}</p>
<table class="stack">
<thead><tr><th scope="col">${t.colTime}</th><th scope="col">${t.colWho}</th><th scope="col">${t.colAddress}</th><th scope="col">${t.colWhere}</th><th scope="col">${t.colSubject}</th><th scope="col">${t.outcomeLabel}</th></tr></thead>
<tbody>${items.map(
          (e) => html`<tr>
<td data-label="${t.colTime}">${times.atSecond(e.at)}</td>
<td data-label="${t.colWho}"><bdi>${e.user ?? '–'}</bdi></td>
<td data-label="${t.colAddress}"><bdi class="code">${e.address ?? '–'}</bdi></td>
<td data-label="${t.colWhere}">${auditWhere(view, e.endpoint, e.operation)}</td>
<td data-label="${t.colSubject}">${
            e.subject === null
              ? '–'
              : e.subjectKind === 'student'
                ? html`<a href="${CONSOLE_BASE}/students/${encodeURIComponent(e.subject)}"><bdi>${e.subject}</bdi></a>`
                : html`<bdi class="code">${e.subject}</bdi>`
          }</td>
<td data-label="${t.outcomeLabel}"><span class="${e.outcome === 'refused' ? 'alert' : ''}">${e.outcome === 'refused' ? t.refused : t.allowed}</span>${e.reason === null ? '' : html` <bdi class="muted">(${e.reason})</bdi>`}</td>
</tr>`,
        )}</tbody></table>
${pager}`
}`,
    { status: problems.length > 0 ? 400 : 200, current: 'audit' },
  );
}
