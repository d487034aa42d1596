// The audit trail page (docs/console.md#audit-trail): the trail the admin API
// lists, newest first, a page at a time by its key (time, id), filtered by
// caller, operation (a list), student, outcome and a time range in the
// operator's zone. The filters are checked by the admin API's own rules
// (AuditListQuery) and listed by the same store function.
import { isIP } from 'node:net';
import { z } from 'zod';
import { AuditListQuery } from '../admin';
import { OPERATION_TRAITS } from '../contract';
import type { AdminStore, AuditCursor } from '../store';
import type { ConsoleContext } from './context';
import { auditWhere } from './values';
import { issueText } from './validation';
import { html } from '../shared/markup';
import { CONSOLE_BASE } from './respond';
import { zonedToUtc } from './times';
import { column, field, filterBar, invalidWhere, keysetPager, option, stackTable } from './partials';
import { keysetCursor, text, type Page, type Signed } from './route-table';
import { errorSummary, type View } from './view';

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

const trimmed = (max: number) => text(max).transform((value) => (value ?? '').trim());

export const auditQuery = z.object({
  caller: trimmed(128),
  operation: trimmed(128),
  student: trimmed(512),
  outcome: trimmed(16),
  from: trimmed(40),
  to: trimmed(40),
  before: keysetCursor(CURSOR, (match): AuditCursor => ({ at: match[1] ?? '', id: match[2] ?? '' })),
  after: keysetCursor(CURSOR, (match): AuditCursor => ({ at: match[1] ?? '', id: match[2] ?? '' })),
});

type AuditForm = Omit<z.output<typeof auditQuery>, 'before' | 'after'>;
type AuditEntry = Awaited<ReturnType<AdminStore['listAuditEntries']>>['items'][number];

export interface AuditModel {
  readonly form: AuditForm;
  readonly problems: readonly { field?: string; text: string }[];
  /** null: the filters are not ones the trail takes. */
  readonly found: { readonly total: number; readonly items: readonly AuditEntry[] } | null;
  readonly newer: string | null;
  readonly older: string | null;
}

export async function loadAudit(
  context: ConsoleContext,
  signed: Signed,
  { before: beforeParam, after: afterParam, ...form }: z.output<typeof auditQuery>,
): Promise<AuditModel> {
  const { view } = signed;
  const { t, times } = view;
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
  const before = beforeParam === 'invalid' ? undefined : beforeParam;
  const after = afterParam === 'invalid' ? undefined : afterParam;
  if (beforeParam === 'invalid' || afterParam === 'invalid') problems.push({ text: t.badCursor });
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
  const hasNewer = after !== undefined ? more : before !== undefined;
  const hasOlder = after !== undefined ? true : more;
  return {
    form,
    problems,
    found: found === null ? null : { total: found.total, items },
    newer: hasNewer ? cursor(items[0]) : null,
    older: hasOlder ? cursor(items[items.length - 1]) : null,
  };
}

export function auditPage(view: View, { form, problems, found, newer, older }: AuditModel): Page {
  const { t, f, times } = view;
  const query = new URLSearchParams(Object.entries(form).filter(([, value]) => value !== '')).toString();
  const pager = keysetPager(view, t.auditPager, `${CONSOLE_BASE}/audit`, query, newer, older);
  const invalid = invalidWhere(problems);
  const operationOption = (value: string) => option(value, value, form.operation);
  const known = [...CONSOLE_OPERATIONS, ...Object.keys(OPERATION_TRAITS)] as string[];
  const filters = filterBar(view, `${CONSOLE_BASE}/audit`, [
    field({
      id: 'caller',
      label: t.caller,
      hint: t.callerHint,
      control: (hint) =>
        html`<input id="caller" name="caller" type="text" dir="ltr" maxlength="128"${hint} value="${form.caller}"${invalid('caller')}>`,
    }),
    field({
      id: 'operation',
      label: t.operation,
      control: () =>
        html`<select id="operation" name="operation" dir="ltr"${invalid('operation')}><option value="">${t.anyOperation}</option><optgroup label="${t.consoleOperations}">${CONSOLE_OPERATIONS.map(operationOption)}</optgroup><optgroup label="${t.serviceOperations}">${Object.keys(OPERATION_TRAITS).map(operationOption)}</optgroup>${
          form.operation !== '' && !known.includes(form.operation) ? operationOption(form.operation) : ''
        }</select>`,
    }),
    field({
      id: 'student',
      label: t.studentId,
      control: () =>
        html`<input id="student" name="student" type="text" dir="auto" maxlength="512" value="${form.student}"${invalid('student')}>`,
    }),
    field({
      id: 'outcome',
      label: t.outcomeLabel,
      control: () =>
        html`<select id="outcome" name="outcome">${option('', t.anyOutcome, form.outcome)}${option('allowed', t.allowed, form.outcome)}${option('refused', t.refused, form.outcome)}</select>`,
    }),
    field({
      id: 'from',
      label: t.fromTime(times.zone),
      control: () => html`<input id="from" name="from" type="datetime-local" value="${form.from}"${invalid('from')}>`,
    }),
    field({
      id: 'to',
      label: t.toTime(times.zone),
      control: () => html`<input id="to" name="to" type="datetime-local" value="${form.to}"${invalid('to')}>`,
    }),
  ]);
  const table = stackTable(found?.items ?? [], [
    column(t.colTime, (e) => times.atSecond(e.at)),
    column(t.colWho, (e) => html`<bdi>${e.user ?? '–'}</bdi>`),
    column(t.colAddress, (e) => html`<bdi class="code">${e.address ?? '–'}</bdi>`),
    column(t.colWhere, (e) => auditWhere(view, e.endpoint, e.operation)),
    column(t.colSubject, (e) =>
      e.subject === null
        ? '–'
        : e.subjectKind === 'student'
          ? html`<a href="${CONSOLE_BASE}/students/${encodeURIComponent(e.subject)}"><bdi>${e.subject}</bdi></a>`
          : html`<bdi class="code">${e.subject}</bdi>`,
    ),
    column(
      t.outcomeLabel,
      (e) =>
        html`<span class="${e.outcome === 'refused' ? 'alert' : ''}">${e.outcome === 'refused' ? t.refused : t.allowed}</span>${e.reason === null ? '' : html` <bdi class="muted">(${e.reason})</bdi>`}`,
    ),
  ]);
  return {
    title: t.auditTitle,
    main: html`${errorSummary(view, problems)}
${filters}
${
  found === null
    ? ''
    : found.total === 0
      ? html`<p role="status">${t.noEntries}</p>`
      : html`<p role="status">${t.auditShown(f.number(found.items.length), f.number(found.total))}</p>
${table}
${pager}`
}`,
    status: problems.length > 0 ? 400 : 200,
    current: 'audit',
  };
}
