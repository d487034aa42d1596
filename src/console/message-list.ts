// The list of messages (docs/console.md#messages): "I never got my code /
// my notification". Every message of both channels, newest first, 50 a page
// by the key of the last row shown (never an offset), filtered by status,
// channel, school, type and days, and found by a student id, a message id or
// the last digits of a phone; phones shown masked. The same list as CSV.
import { z } from 'zod';
import type { Response } from 'express';
import { maskPhone } from '../log';
import {
  PHONE_SUFFIX_DIGITS,
  phoneDigits,
  type MessageCursor,
  type MessageListFilter,
  type MessageListItem,
  type MessageListStatus,
} from '../store';
import type { ConsoleContext } from './context';
import { statusClass } from './status-style';
import { shortMessageId, typeName } from './values';
import { html, type Html } from '../shared/markup';
import { CONSOLE_BASE } from './respond';
import { lastErrorText, maskErrorText, refusalText } from './explain';
import { column, field, invalidWhere, option, pagerOf, stackTable } from './partials';
import type { Page, Signed } from './route-table';
import { errorSummary, type SignedInView } from './view';

export const PAGE_SIZE = 50;
/** The most rows one CSV download holds; a longer list is cut there (the page says so). */
export const CSV_MAX_ROWS = 10_000;
const CSV_BATCH = 500;

/** The status values of the query string, as the page names them, and what the outbox calls them. */
const STATUSES: Readonly<Record<string, MessageListStatus>> = {
  queued: 'queued',
  'in-flight': 'sending',
  sent: 'sent',
  retrying: 'failed',
  uncertain: 'uncertain',
  dead: 'dead',
  refused: 'refused',
};
export const STATUS_PARAM = Object.fromEntries(
  Object.entries(STATUSES).map(([param, status]) => [status, param]),
) as Readonly<Record<MessageListStatus, string>>;

const MAX = { school: 512, type: 64, find: 128, error: 2000, id: 128 } as const;
const DAY = /^(\d{4})-(\d\d)-(\d\d)$/;
/** An instant in UTC to the minute (`2026-03-02T08:00Z`): what a chart's minute or hour bar links with. */
const INSTANT = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)Z$/;
const CURSOR = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?Z)_(.{1,128})$/s;

/** The form as the query string gave it, each field as typed (for the form to show again). */
interface Form {
  status: string;
  channel: string;
  school: string;
  type: string;
  from: string;
  to: string;
  q: string;
  error: string;
}

type Field = keyof Form | 'cursor';

interface Parsed {
  readonly form: Form;
  readonly filter: MessageListFilter | null;
  readonly before?: MessageCursor;
  readonly after?: MessageCursor;
  readonly problems: { field?: Field; text: string }[];
}

/** A valid day (`2026-03-02`) as the ISO time it starts at, else null. */
function dayStart(value: string): string | null {
  const match = DAY.exec(value);
  if (match === null) return null;
  const at = new Date(`${value}T00:00:00.000Z`);
  return Number.isNaN(at.getTime()) || at.toISOString().slice(0, 10) !== value ? null : at.toISOString();
}

/** A valid instant (`2026-03-02T08:00Z`, UTC, to the minute) as its ISO time, else null. */
export function instantAt(value: string): string | null {
  if (!INSTANT.test(value)) return null;
  const at = new Date(`${value.slice(0, 16)}:00.000Z`);
  return Number.isNaN(at.getTime()) || at.toISOString().slice(0, 16) !== value.slice(0, 16) ? null : at.toISOString();
}

/** An instant as the `from` and `to` parameters write it: `2026-03-02T08:00Z`. */
export const instantParam = (iso: string): string => `${iso.slice(0, 16)}Z`;

const nextDay = (iso: string): string => new Date(Date.parse(iso) + 24 * 3_600_000).toISOString();

/**
 * A `from` or `to` value as the bound of the list's times queued (docs/design.md#a-chart-period-is-a-link):
 * an instant is itself (`to` excluded); a day is its start for `from`, and the next day's start for `to`
 * (the day included). Null when it is neither.
 */
function bound(value: string, end: boolean): { at: string; instant: boolean } | null {
  const instant = instantAt(value);
  if (instant !== null) return { at: instant, instant: true };
  const day = dayStart(value);
  return day === null ? null : { at: end ? nextDay(day) : day, instant: false };
}

export const cursorParam = (cursor: MessageCursor): string => `${cursor.createdAt}_${cursor.id}`;

/**
 * The query as it comes: its values are read and checked by parseQuery,
 * which names each problem by its field in the operator's language.
 */
export const messagesQuery = z.record(z.string(), z.unknown());

/** Reads and checks the query string; a refused value is a problem named by its field, and nothing is listed. */
export function parseQuery(view: SignedInView, query: Record<string, unknown>): Parsed {
  const { t } = view;
  const problems: { field?: Field; text: string }[] = [];
  const labels: Readonly<Record<keyof Form, string>> = {
    status: t.statusLabel,
    channel: t.colChannel,
    school: t.schoolLabel,
    type: t.typeLabel,
    from: t.fromDate,
    to: t.toDate,
    q: t.findMessage,
    error: t.lastErrorFilter,
  };
  const read = (name: keyof Form, max: number): string => {
    const value = query[name];
    if (value === undefined) return '';
    if (typeof value !== 'string') {
      problems.push({ field: name, text: t.invalidField(labels[name], t.whyOnce) });
      return '';
    }
    return value.trim().slice(0, max);
  };
  const form: Form = {
    status: read('status', 16),
    channel: read('channel', 8),
    school: read('school', MAX.school),
    type: read('type', MAX.type),
    // Longer than a day is refused below rather than cut to one.
    from: read('from', 40),
    to: read('to', 40),
    q: read('q', MAX.find),
    error: read('error', MAX.error),
  };
  const status = form.status === '' ? null : (STATUSES[form.status] ?? undefined);
  if (status === undefined) problems.push({ field: 'status', text: t.invalidField(t.statusLabel, t.whyChoose) });
  const channel =
    form.channel === '' ? null : form.channel === 'push' || form.channel === 'sms' ? form.channel : undefined;
  if (channel === undefined) problems.push({ field: 'channel', text: t.invalidField(t.colChannel, t.whyChoose) });
  const from = form.from === '' ? null : bound(form.from, false);
  if (from === null && form.from !== '') problems.push({ field: 'from', text: t.invalidField(t.fromDate, t.whyDate) });
  const until = form.to === '' ? null : bound(form.to, true);
  if (until === null && form.to !== '') problems.push({ field: 'to', text: t.invalidField(t.toDate, t.whyDate) });
  // An empty range is refused: a day \`to\` before the day \`from\`, an instant \`to\` not after \`from\`.
  if (from !== null && until !== null && until.at <= from.at) {
    problems.push({ field: 'to', text: t.invalidField(t.toDate, until.instant ? t.whyAfter : t.whyRange) });
  }
  const cursorOf = (name: 'before' | 'after'): MessageCursor | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    const match = typeof value === 'string' ? CURSOR.exec(value) : null;
    if (match === null || Number.isNaN(Date.parse(match[1] ?? ''))) {
      problems.push({ field: 'cursor', text: t.badCursor });
      return undefined;
    }
    return { createdAt: match[1] ?? '', id: match[2] ?? '' };
  };
  const before = cursorOf('before');
  const after = cursorOf('after');
  if (before !== undefined && after !== undefined) problems.push({ field: 'cursor', text: t.badCursor });
  const filter: MessageListFilter | null =
    problems.length > 0
      ? null
      : {
          status: status ?? null,
          channel: channel ?? null,
          school: form.school === '' ? null : form.school,
          type: form.type === '' ? null : form.type,
          from: from?.at ?? null,
          until: until?.at ?? null,
          find: form.q === '' ? null : form.q,
          error: form.error === '' ? null : form.error,
        };
  return {
    form,
    filter,
    problems,
    ...(before === undefined ? {} : { before }),
    ...(after === undefined ? {} : { after }),
  };
}

/** The query string of the filters, without a cursor (the links of the pager and the CSV add theirs). */
export function filterQuery(form: Form): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(form) as [string, string][]) if (value !== '') params.set(name, value);
  return params.toString();
}

const withQuery = (path: string, query: string): string => (query === '' ? path : `${path}?${query}`);

/** What the audit trail keeps of a search: a phone longer than the stored suffix masked, as in the logs. */
function auditedFind(find: string): string | null {
  if (find === '') return null;
  const digits = phoneDigits(find);
  return digits !== null && digits.length > PHONE_SUFFIX_DIGITS ? maskPhone(find) : find;
}

const messageHref = (item: MessageListItem): string =>
  `${CONSOLE_BASE}/messages/${item.channel}/${encodeURIComponent(item.id)}`;

export interface MessageListModel {
  readonly parsed: Parsed;
  /** null: the filters are not ones the list takes. */
  readonly list: Awaited<ReturnType<ConsoleContext['stores']['console']['listMessages']>> | null;
}

export async function loadMessageList(
  context: ConsoleContext,
  signed: Signed,
  query: Record<string, unknown>,
): Promise<MessageListModel> {
  const parsed = parseQuery(signed.view, query);
  const { filter } = parsed;
  const list =
    filter === null
      ? null
      : await context.stores.console.listMessages(filter, {
          limit: PAGE_SIZE,
          ...(parsed.before === undefined ? {} : { before: parsed.before }),
          ...(parsed.after === undefined ? {} : { after: parsed.after }),
        });
  if (list !== null) await signed.audit({ subject: auditedFind(parsed.form.q), outcome: 'allowed' });
  return { parsed, list };
}

/** Under the form, when `from` or `to` is an instant: the times they name, in the operator's zone. */
function instantLine(view: SignedInView, { form, filter }: Parsed): Html | '' {
  if (filter === null || !(INSTANT.test(form.from) || INSTANT.test(form.to))) return '';
  const { t } = view;
  const line =
    filter.from !== null && filter.until !== null
      ? t.showingBetween(view.times.at(filter.from), view.times.at(filter.until))
      : filter.from !== null
        ? t.showingFrom(view.times.at(filter.from))
        : t.showingUntil(view.times.at(filter.until));
  return html`<p class="hint" id="times-shown">${line}</p>`;
}

const FIELD_IDS: Readonly<Record<Field, string>> = {
  status: 'status',
  channel: 'channel',
  school: 'school',
  type: 'type',
  from: 'from',
  to: 'to',
  q: 'q',
  error: 'q',
  cursor: 'q',
};

export function messageListPage(view: SignedInView, { parsed, list }: MessageListModel): Page {
  const { t, f } = view;
  const { form } = parsed;
  const query = filterQuery(form);
  const problems = parsed.problems.map((p) => ({
    ...(p.field === undefined ? {} : { field: FIELD_IDS[p.field] }),
    text: p.text,
  }));
  // The filters beyond the search are folded away until one is used (a phone's first screen shows the results).
  const filtered =
    [form.status, form.channel, form.school, form.type, form.from, form.to].some((value) => value !== '') ||
    problems.some((p) => p.field !== undefined && p.field !== 'q');
  const invalid = invalidWhere(problems);
  const statusOptions = Object.entries(STATUSES).map(([param, status]) => option(param, t.status[status], form.status));
  const pager = pagerOf(view, t.messagesPager, `${CONSOLE_BASE}/messages`, query, list, cursorParam);
  const errorFilter =
    form.error === ''
      ? ''
      : html`<p>${t.lastErrorFilter}: <bdi class="code">${maskErrorText(form.error)}</bdi> · <a href="${withQuery(
          `${CONSOLE_BASE}/messages`,
          filterQuery({ ...form, error: '' }),
        )}">${t.removeFilter}</a></p>`;
  // A day is chosen with the browser's date picker; an instant (a chart bar's link) is kept as typed in a text
  // field, which a date field would empty, and is restated in the operator's zone under the form.
  const timeField = (id: 'from' | 'to', label: string) =>
    field({
      id,
      label,
      control: () =>
        form[id] === '' || DAY.test(form[id])
          ? html`<input id="${id}" name="${id}" type="date" aria-describedby="dates-hint" value="${form[id]}"${invalid(id)}>`
          : html`<input id="${id}" name="${id}" type="text" dir="ltr" maxlength="40" aria-describedby="dates-hint" value="${form[id]}"${invalid(id)}>`,
    });
  const filters = [
    field({
      id: 'status',
      label: t.statusLabel,
      control: () =>
        html`<select id="status" name="status"${invalid('status')}>${option('', t.anyValue, form.status)}${statusOptions}</select>`,
    }),
    field({
      id: 'channel',
      label: t.colChannel,
      control: () =>
        html`<select id="channel" name="channel"${invalid('channel')}>${option('', t.anyValue, form.channel)}${option('push', t.channelShort.push, form.channel)}${option('sms', t.channelShort.sms, form.channel)}</select>`,
    }),
    field({
      id: 'school',
      label: t.schoolLabel,
      control: () =>
        html`<input id="school" name="school" type="text" dir="ltr" maxlength="${MAX.school}" aria-describedby="school-hint" value="${form.school}"${invalid('school')}>`,
    }),
    field({
      id: 'type',
      label: t.typeLabel,
      control: () =>
        html`<input id="type" name="type" type="text" dir="auto" maxlength="${MAX.type}" value="${form.type}"${invalid('type')}>`,
    }),
    timeField('from', t.fromDate),
    timeField('to', t.toDate),
  ];
  const table = stackTable(
    list?.items ?? [],
    [
      column(t.colQueued, (item) => view.times.atSecond(item.createdAt)),
      column(t.colMessage, (item) =>
        // A refused call queued nothing: there is no message page to go to. The short id is left to right and
        // never wraps (`.code[dir=ltr]`, docs/console.md): Arabic's narrow column broke it mid-id.
        item.status === 'refused'
          ? html`<bdi class="code" dir="ltr">${shortMessageId(item.id)}</bdi>`
          : html`<a href="${messageHref(item)}"><bdi class="code" dir="ltr">${shortMessageId(item.id)}</bdi></a>`,
      ),
      column(t.colChannel, (item) => t.channelShort[item.channel]),
      column(t.colRecipient, (item) =>
        item.channel === 'sms'
          ? html`<bdi class="code" dir="ltr">${maskPhone(item.phone ?? '')}</bdi>`
          : item.studentId === null
            ? '–'
            : html`<a href="${CONSOLE_BASE}/students/${encodeURIComponent(item.studentId)}"><bdi>${item.studentId}</bdi></a>`,
      ),
      column(t.typeLabel, (item) => (item.type === null ? t.loginCode : html`<bdi>${typeName(view, item.type)}</bdi>`)),
      column(t.statusLabel, (item) => html`<span class="${statusClass(item.status)}">${t.status[item.status]}</span>`),
      column(t.colAttempts, (item) => f.number(item.attempts), true),
      column(t.colLastError, (item) =>
        item.status === 'refused'
          ? refusalText(view, item.lastError ?? '', false)
          : lastErrorText(view, item.channel, item.lastError, { full: false }),
      ),
      column(t.colSentAt, (item) => view.times.atSecond(item.sentAt)),
    ],
    { className: 'messages' },
  );
  return {
    title: t.messagesTitle,
    main: html`${errorSummary(view, problems)}
<form class="message-filters" method="get" action="${CONSOLE_BASE}/messages">
<div class="field"><label for="q">${t.findMessage}</label><p class="hint" id="q-hint">${t.findHint}</p><div class="search-row"><input id="q" name="q" type="search" dir="auto" maxlength="${MAX.find}" aria-describedby="q-hint" value="${form.q}"${invalid('q')}><button type="submit">${t.search}</button></div></div>
<details${filtered ? html` open` : ''}><summary>${t.moreFilters}</summary>
<div class="filters">
${filters}
</div>
<p class="hint"><span id="school-hint">${t.schoolHint}</span> <span id="dates-hint">${t.datesHint}</span></p>
<div class="actions"><button type="submit">${t.filter}</button> <a href="${CONSOLE_BASE}/messages">${t.clearFilters}</a></div>
</details>
${form.error === '' ? '' : html`<input type="hidden" name="error" value="${form.error}">`}
</form>
${errorFilter}
${instantLine(view, parsed)}
${
  list === null
    ? ''
    : list.items.length === 0
      ? html`<p role="status">${t.noMessages}</p>`
      : html`<p role="status">${t.messagesOnPage(list.items.length, f.number(list.items.length))}</p>
<p><a href="${withQuery(`${CONSOLE_BASE}/messages.csv`, query)}" download>${t.downloadCsv(f.number(CSV_MAX_ROWS))}</a></p>
${table}
${pager}`
}`,
    status: problems.length > 0 ? 400 : 200,
    current: 'messages',
  };
}

/** A CSV cell: a formula's first character made text by a quote, then quoted when it must be. */
export function csvCell(value: string): string {
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const CSV_COLUMNS = [
  'channel',
  'id',
  'queued_at',
  'status',
  'attempts',
  'student_id',
  'school',
  'type',
  'phone',
  'last_error',
  'sent_at',
] as const;

/** One row of the CSV, masked as the page is. */
function csvLine(item: MessageListItem): string {
  const cells = [
    item.channel,
    item.id,
    item.createdAt,
    STATUS_PARAM[item.status],
    String(item.attempts),
    item.studentId ?? '',
    item.schoolKey ?? '',
    item.type ?? '',
    item.phone === null ? '' : maskPhone(item.phone),
    item.lastError === null ? '' : maskErrorText(item.lastError),
    item.sentAt ?? '',
  ];
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** Resolves once `res` takes more (or is gone): a slow reader holds the next batch's read, not memory. */
function drained(res: Response): Promise<void> {
  const events = ['drain', 'close'] as const;
  return new Promise((resolve) => {
    const done = () => {
      for (const event of events) res.off(event, done);
      resolve();
    };
    for (const event of events) res.once(event, done);
  });
}

/**
 * The filtered list as CSV, masked as the page is, at most CSV_MAX_ROWS rows, newest first, sent a batch at a
 * time as it is read (docs/design.md#the-list-of-messages-at-a-million): the first batch is a page's worth,
 * so that the first rows leave as soon as a page would. A store failure after the first rows cuts the
 * download short (the connection is reset, so that a partial file is not taken for a whole one).
 */
export async function downloadMessageList(
  context: ConsoleContext,
  signed: Signed,
  query: Record<string, unknown>,
): Promise<void> {
  const { res } = signed;
  const parsed = parseQuery(signed.view, query);
  if (parsed.filter === null) {
    res.status(400).setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end(`${parsed.problems.map((p) => p.text).join('\n')}\n`);
    return;
  }
  await signed.audit({ subject: auditedFind(parsed.form.q), outcome: 'allowed' });
  // The byte order mark lets spreadsheets read the Arabic in it as UTF-8.
  let pending = `\uFEFF${CSV_COLUMNS.join(',')}\r\n`;
  let before = parsed.before;
  let count = 0;
  try {
    while (count < CSV_MAX_ROWS && !res.destroyed) {
      const batch = await context.stores.console.listMessages(parsed.filter, {
        limit: Math.min(count === 0 ? PAGE_SIZE : CSV_BATCH, CSV_MAX_ROWS - count),
        ...(before === undefined ? {} : { before }),
      });
      const text = pending + batch.items.map(csvLine).join('');
      pending = '';
      if (!res.headersSent) {
        res.status(200);
        res.setHeader('Content-Type', 'text/csv; charset=utf-8');
        res.setHeader('Content-Disposition', 'attachment; filename="messages.csv"');
      }
      count += batch.items.length;
      if (batch.older === null || count >= CSV_MAX_ROWS) {
        res.end(text);
        return;
      }
      if (!res.write(text)) await drained(res);
      before = batch.older;
    }
  } catch (error) {
    if (!res.headersSent) throw error;
    context.logger.warn(
      { rows: count, error: error instanceof Error ? error.name : 'unknown' },
      'console: messages CSV cut short by a store failure',
    );
    res.destroy();
  }
}
