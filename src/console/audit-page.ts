// The audit trail page (docs/console.md#audit-trail): the trail the admin API
// lists, newest first, filtered by caller, operation, student, outcome and
// time range. The filters are checked by the admin API's own rules
// (AuditListQuery) and listed by the same store function.
import { isIP } from 'node:net';
import type { Request, Response } from 'express';
import { AuditListQuery } from '../admin';
import type { ConsoleContext } from './context';
import { html } from '../shared/markup';
import { CONSOLE_BASE, sendPage } from './respond';
import { errorSummary, page, type View } from './view';

const SHOWN = 100;

const text = (value: unknown, max: number): string => (typeof value === 'string' ? value.trim().slice(0, max) : '');

/** A datetime-local value (`2026-03-02T08:00`) read as UTC; anything else as given, for the rules to judge. */
const asUtc = (value: string): string => (/^\d{4}-\d\d-\d\dT\d\d:\d\d$/.test(value) ? `${value}:00Z` : value);

export async function showAudit(context: ConsoleContext, view: View, req: Request, res: Response): Promise<void> {
  const { t, f } = view;
  const form = {
    caller: text(req.query.caller, 128),
    operation: text(req.query.operation, 128),
    student: text(req.query.student, 512),
    outcome: text(req.query.outcome, 16),
    from: text(req.query.from, 40),
    to: text(req.query.to, 40),
  };
  const filters = {
    ...(form.caller === '' ? {} : isIP(form.caller) !== 0 ? { address: form.caller } : { user: form.caller }),
    ...(form.operation === '' ? {} : { operation: form.operation }),
    ...(form.student === '' ? {} : { subject: form.student }),
    ...(form.outcome === '' ? {} : { outcome: form.outcome }),
    ...(form.from === '' ? {} : { from: asUtc(form.from) }),
    ...(form.to === '' ? {} : { to: asUtc(form.to) }),
  };
  const parsed = AuditListQuery.safeParse(filters);
  const fieldOf: Readonly<Record<string, { id: string; label: string }>> = {
    user: { id: 'caller', label: t.caller },
    address: { id: 'caller', label: t.caller },
    operation: { id: 'operation', label: t.operation },
    subject: { id: 'student', label: t.studentId },
    outcome: { id: 'outcome', label: t.outcomeLabel },
    from: { id: 'from', label: t.fromTime },
    to: { id: 'to', label: t.toTime },
  };
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((issue) => {
        const field = fieldOf[String(issue.path[0])] ?? { id: 'caller', label: t.caller };
        return { field: field.id, text: t.invalidField(field.label, issue.message) };
      });
  const entries = parsed.success
    ? await context.stores.admin.listAuditEntries({ ...parsed.data, limit: SHOWN, offset: 0 })
    : null;
  const invalid = (id: string) => (problems.some((p) => p.field === id) ? html` aria-invalid="true"` : '');
  const option = (value: string, label: string) =>
    html`<option value="${value}"${form.outcome === value ? html` selected` : ''}>${label}</option>`;
  sendPage(
    res,
    problems.length > 0 ? 400 : 200,
    page(
      view,
      t.auditTitle,
      html`${errorSummary(view, problems)}
<form class="filters" method="get" action="${CONSOLE_BASE}/audit">
<div class="field"><label for="caller">${t.caller}</label><p class="hint" id="caller-hint">${t.callerHint}</p><input id="caller" name="caller" type="text" dir="ltr" maxlength="128" aria-describedby="caller-hint" value="${form.caller}"${invalid('caller')}></div>
<div class="field"><label for="operation">${t.operation}</label><input id="operation" name="operation" type="text" dir="ltr" maxlength="128" value="${form.operation}"${invalid('operation')}></div>
<div class="field"><label for="student">${t.studentId}</label><input id="student" name="student" type="text" dir="auto" maxlength="512" value="${form.student}"${invalid('student')}></div>
<div class="field"><label for="outcome">${t.outcomeLabel}</label><select id="outcome" name="outcome">${option('', t.anyOutcome)}${option('allowed', t.allowed)}${option('refused', t.refused)}</select></div>
<div class="field"><label for="from">${t.fromTime}</label><input id="from" name="from" type="datetime-local" value="${form.from}"${invalid('from')}></div>
<div class="field"><label for="to">${t.toTime}</label><input id="to" name="to" type="datetime-local" value="${form.to}"${invalid('to')}></div>
<button type="submit">${t.filter}</button>
</form>
${
  entries === null
    ? ''
    : entries.total === 0
      ? html`<p role="status">${t.noEntries}</p>`
      : html`<p role="status">${t.auditShown(f.number(entries.items.length), f.number(entries.total))}</p>
<table class="stack">
<thead><tr><th scope="col">${t.colTime}</th><th scope="col">${t.colWho}</th><th scope="col">${t.colAddress}</th><th scope="col">${t.colWhere}</th><th scope="col">${t.colSubject}</th><th scope="col">${t.outcomeLabel}</th></tr></thead>
<tbody>${entries.items.map(
          (e) => html`<tr>
<td data-label="${t.colTime}">${view.times.atSecond(e.at)}</td>
<td data-label="${t.colWho}"><bdi>${e.user ?? '–'}</bdi></td>
<td data-label="${t.colAddress}"><bdi class="code">${e.address ?? '–'}</bdi></td>
<td data-label="${t.colWhere}"><bdi class="code">${e.endpoint} ${e.operation}</bdi></td>
<td data-label="${t.colSubject}">${
            e.subject === null
              ? '–'
              : e.subjectKind === 'student'
                ? html`<a href="${CONSOLE_BASE}/students/${encodeURIComponent(e.subject)}"><bdi>${e.subject}</bdi></a>`
                : html`<bdi class="code">${e.subject}</bdi>`
          }</td>
<td data-label="${t.outcomeLabel}"><span class="${e.outcome === 'refused' ? 'alert' : ''}">${e.outcome === 'refused' ? t.refused : t.allowed}</span>${e.reason === null ? '' : html` <bdi class="muted">(${e.reason})</bdi>`}</td>
</tr>`,
        )}</tbody></table>`
}`,
      { current: 'audit' },
    ),
  );
}
