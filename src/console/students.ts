// Find a student, and the student's page (docs/console.md#find-a-student):
// the answer to "why didn't the parent get it?". The records and the
// notifications come through the admin role, the same store functions the
// admin API uses; every page of a student is a read of personal data and goes
// into the audit trail, and so does every reveal of a push token.
import type { Request, Response } from 'express';
import type { ConsoleContext } from './context';
import { statusClass } from './status-style';
import { noteStateName, typeName } from './values';
import { html, type Html, type HtmlValue } from '../shared/markup';
import { CONSOLE_BASE } from './respond';
import { lastErrorText, refusalText } from './explain';
import { allows, csrfField, notice, sendView, titled, type SignedInView } from './view';

export const PAGE_SIZE = 25;
/** The most pages a search walks: past it, the words should be more precise. */
const MAX_PAGE = 400;
const LIST_MAX = 50;

export async function showSearch(
  context: ConsoleContext,
  view: SignedInView,
  req: Request,
  res: Response,
): Promise<void> {
  const { t, f } = view;
  const q = typeof req.query.q === 'string' ? req.query.q.slice(0, 100) : '';
  const pageNumber = Math.min(MAX_PAGE, Math.max(1, Number.parseInt(String(req.query.page ?? '1'), 10) || 1));
  const hits =
    q.trim() === ''
      ? null
      : await context.stores.console.searchStudents(q, { limit: PAGE_SIZE, offset: (pageNumber - 1) * PAGE_SIZE });
  if (hits !== null)
    await context.audit({
      address: req.ip ?? null,
      account: view.session.account,
      operation: 'student-search',
      outcome: 'allowed',
      subject: q,
    });
  const pages = hits === null ? 0 : Math.min(MAX_PAGE, Math.ceil(hits.total / PAGE_SIZE));
  const link = (n: number) => `${CONSOLE_BASE}/students?q=${encodeURIComponent(q)}&page=${n}`;
  const results =
    hits === null
      ? ''
      : hits.total === 0
        ? html`<p role="status">${t.noneFound}</p>`
        : html`<p role="status">${t.found(hits.total, f.number(hits.total))}</p>
<table class="stack">
<thead><tr><th scope="col">${t.colName}</th><th scope="col">${t.colId}</th><th scope="col">${t.colSchool}</th><th scope="col">${t.colClass}</th><th scope="col">${t.colActive}</th></tr></thead>
<tbody>${hits.items.map(
            (s) => html`<tr>
<td data-label="${t.colName}"><a href="${CONSOLE_BASE}/students/${encodeURIComponent(s.id)}"><bdi>${s.fullName}</bdi></a></td>
<td data-label="${t.colId}"><bdi class="code">${s.id}</bdi></td>
<td data-label="${t.colSchool}"><bdi>${s.schoolName ?? s.schoolKey}</bdi></td>
<td data-label="${t.colClass}"><bdi>${s.classId ?? '–'}</bdi></td>
<td data-label="${t.colActive}">${s.active ? t.yes : t.no}</td>
</tr>`,
          )}</tbody></table>
${
  pages > 1
    ? html`<nav class="pager" aria-label="${t.pageOf(f.number(pageNumber), f.number(pages))}"><p>${t.pageOf(f.number(pageNumber), f.number(pages))}</p>${
        pageNumber > 1 ? html`<a rel="prev" href="${link(pageNumber - 1)}">${t.previous}</a> ` : ''
      }${pageNumber < pages ? html`<a rel="next" href="${link(pageNumber + 1)}">${t.next}</a>` : ''}</nav>`
    : ''
}`;
  sendView(
    res,
    view,
    t.studentsTitle,
    html`<form class="search" method="get" action="${CONSOLE_BASE}/students" role="search">
<div class="field"><label for="q">${t.searchStudents}</label><p class="hint" id="q-hint">${t.searchHint}</p>
<div class="search-row"><input id="q" name="q" type="search" maxlength="100" dir="auto" aria-describedby="q-hint" value="${q}"> <button type="submit">${t.search}</button></div></div>
</form>
${results}`,
    { current: 'students' },
  );
}

/** `abcd…wxyz (152 characters)`: enough to compare with what the phone shows, not enough to send to it. */
export function maskToken(token: string): string {
  if (token.length <= 12) return '…';
  return `${token.slice(0, 4)}…${token.slice(-4)}`;
}

export async function showStudent(
  context: ConsoleContext,
  view: SignedInView,
  req: Request,
  res: Response,
  id: string,
  reveal: boolean,
): Promise<void> {
  const { t, f } = view;
  const session = view.session;
  const admin = context.stores.admin;
  const student = await admin.getRecord('students', id);
  const address = req.ip ?? null;
  if (student === null) {
    sendView(res, view, t.notFoundTitle, html`<p>${t.studentMissing}</p>`, { current: 'students', status: 404 });
    return;
  }
  const [school, device, notifications, absences, notes, refusedCalls] = await Promise.all([
    admin.getRecord('schools', student.school),
    student.deviceId === undefined || student.deviceId === null ? null : admin.getRecord('devices', student.deviceId),
    admin.listOutbox('push', { studentId: id, limit: LIST_MAX, offset: 0 }),
    admin.listRecords('absences', { studentId: id }, { limit: LIST_MAX, offset: 0 }),
    admin.listRecords('notes', { studentId: id }, { limit: LIST_MAX, offset: 0 }),
    context.stores.console.listRefusedCalls(id, LIST_MAX),
  ]);
  await context.audit({
    address,
    account: session.account,
    operation: reveal ? 'reveal-token' : 'student',
    subjectKind: 'student',
    subject: id,
    outcome: 'allowed',
  });

  const token = device?.token ?? null;
  const canReveal = allows(session.role, 'operator');
  const deviceBlock: Html =
    device === null
      ? html`<p class="due alert">${t.noDevice}</p>`
      : html`<dl class="summary-list">
<div><dt>${t.colId}</dt><dd><bdi class="code">${device.id}</bdi></dd></div>
<div><dt>${t.platform}</dt><dd>${device.platform ?? '–'}${
          canReveal
            ? html` · <a href="${CONSOLE_BASE}/devices/${encodeURIComponent(device.id)}/edit?student=${encodeURIComponent(id)}">${t.editDevice}</a>`
            : ''
        }</dd></div>
<div><dt>${t.pushToken}</dt><dd>${
          token === null || token === undefined
            ? html`<span class="alert">${t.noToken}</span>`
            : reveal
              ? html`<code class="code token">${token}</code><p class="hint">${t.tokenRevealed}</p>`
              : html`<bdi class="code">${maskToken(token)}</bdi> ${
                  canReveal
                    ? html`<form class="inline" method="post" action="${CONSOLE_BASE}/students/${encodeURIComponent(id)}/reveal">${csrfField(view)}<button type="submit" class="secondary">${t.reveal}</button></form>`
                    : ''
                }`
        }</dd></div>
</dl>`;

  const items = notifications.channel === 'push' ? notifications.items : [];
  const notificationRows =
    items.length === 0
      ? html`<p>${t.noNotifications}</p>`
      : html`<table class="stack">
<thead><tr><th scope="col">${t.colType}</th><th scope="col">${t.colQueued}</th><th scope="col">${t.colStatus}</th><th scope="col" class="number">${t.colAttempts}</th><th scope="col">${t.colLastError}</th><th scope="col">${t.colSentAt}</th></tr></thead>
<tbody>${items.map(
          (n) => html`<tr>
<td data-label="${t.colType}"><a href="${CONSOLE_BASE}/messages/push/${encodeURIComponent(n.id)}"><bdi>${typeName(view, n.type)}</bdi></a></td>
<td data-label="${t.colQueued}">${view.times.atSecond(n.createdAt)}</td>
<td data-label="${t.colStatus}"><span class="${statusClass(n.status)}">${t.status[n.status === 'uncertain' ? 'uncertain' : n.status]}</span></td>
<td data-label="${t.colAttempts}" class="number">${f.number(n.attempts)}</td>
<td data-label="${t.colLastError}">${lastErrorText(view, 'push', n.lastError)}</td>
<td data-label="${t.colSentAt}">${view.times.atSecond(n.sentAt)}</td>
</tr>`,
        )}</tbody></table>`;

  const refusedRows =
    refusedCalls.length === 0
      ? html`<p>${t.noRefused}</p>`
      : html`<table class="stack">
<thead><tr><th scope="col">${t.colTime}</th><th scope="col">${t.colCall}</th><th scope="col">${t.colType}</th><th scope="col">${t.colStatus}</th><th scope="col">${t.colReason}</th></tr></thead>
<tbody>${refusedCalls.map(
          (r) => html`<tr>
<td data-label="${t.colTime}">${view.times.atSecond(r.at)}</td>
<td data-label="${t.colCall}"><bdi class="code">${r.operation}</bdi></td>
<td data-label="${t.colType}">${r.type === null ? '–' : html`<bdi>${r.type}</bdi>`}</td>
<td data-label="${t.colStatus}"><span class="alert">${t.status.refused}</span></td>
<td data-label="${t.colReason}">${refusalText(view, r.reason)}</td>
</tr>`,
        )}</tbody></table>`;

  const absenceRows = compactTable(t.noAbsences, absences.items, [
    [t.colDate, (a) => view.times.day(a.date)],
    [t.colType, (a) => html`<bdi>${typeName(view, a.type)}</bdi>`],
    [t.colReason, (a) => html`<bdi>${a.reason ?? '–'}</bdi>`],
    [t.colSeen, (a) => (a.seen === true ? t.yes : t.no)],
  ]);
  const noteRows = compactTable(t.noNotes, notes.items, [
    [t.colDate, (n) => view.times.at(n.date)],
    [t.colType, (n) => html`<bdi>${typeName(view, n.type)}</bdi>`],
    [t.colText, (n) => html`<bdi>${n.text}</bdi>`],
    [t.colState, (n) => (typeof n.state === 'string' ? noteStateName(view, n.state) : (n.state ?? '–'))],
  ]);

  sendView(
    res,
    view,
    titled(t.studentTitle, student.fullName),
    html`${notice(req.query.saved === '1' ? t.studentSaved : req.query.saved === 'device' ? t.deviceSaved : null)}<p><a href="${CONSOLE_BASE}/students">${t.back}</a>${
      canReveal ? html` · <a href="${CONSOLE_BASE}/students/${encodeURIComponent(id)}/edit">${t.edit}</a>` : ''
    }</p>
<dl class="summary-list">
<div><dt>${t.colId}</dt><dd><bdi class="code">${student.id}</bdi></dd></div>
<div><dt>${t.colSchool}</dt><dd><bdi>${school?.name ?? student.school}</bdi></dd></div>
<div><dt>${t.colClass}</dt><dd><bdi>${student.classId ?? '–'}</bdi></dd></div>
<div><dt>${t.colActive}</dt><dd>${student.active === '0' ? t.no : t.yes}</dd></div>
</dl>
<h2>${t.device}</h2>
${deviceBlock}
<h2>${t.notifications}</h2>
${notificationRows}
<h2>${t.refusedTitle}</h2>
${refusedRows}
<h2>${t.absences}</h2>
${absenceRows}
<h2>${t.notes}</h2>
${noteRows}`,
    { current: 'students' },
  );
}

/**
 * A table that stacks on a phone, a row a line: each cell is labelled with
 * its column's heading (data-label), and `empty` stands instead when there
 * are no rows.
 */
function compactTable<T>(
  empty: string,
  items: readonly T[],
  columns: readonly (readonly [heading: string, cell: (item: T) => HtmlValue])[],
): Html {
  if (items.length === 0) return html`<p>${empty}</p>`;
  return html`<table class="stack"><thead><tr>${columns.map(([heading]) => html`<th scope="col">${heading}</th>`)}</tr></thead>
<tbody>${items.map(
    (item) => html`<tr>${columns.map(([heading, cell]) => html`<td data-label="${heading}">${cell(item)}</td>`)}</tr>`,
  )}</tbody></table>`;
}
