// Find a student, and the student's page (docs/console.md#find-a-student):
// the answer to "why didn't the parent get it?". The records and the
// notifications come through the admin role, the same store functions the
// admin API uses; every page of a student is a read of personal data and goes
// into the audit trail, and so does every reveal of a push token.
import { z } from 'zod';
import type { PushNotificationRow, RecordOf, RecordPage, StudentHits } from '../store';
import type { ConsoleContext } from './context';
import { statusClass } from './status-style';
import { noteStateName, typeName } from './values';
import { html, type Html } from '../shared/markup';
import { CONSOLE_BASE } from './respond';
import { lastErrorText, refusalText } from './explain';
import { column, numberedPager, stackTable, summaryList } from './partials';
import { pageNumber, text, type Page, type Signed } from './route-table';
import { allows, csrfField, notice, titled, type SignedInView, type View } from './view';

export const PAGE_SIZE = 25;
/** The most pages a search walks: past it, the words should be more precise. */
const MAX_PAGE = 400;
const LIST_MAX = 50;

export const searchQuery = z.object({ q: text(100), page: pageNumber(MAX_PAGE) });

export interface SearchModel {
  readonly q: string;
  readonly page: number;
  /** null: nothing asked yet. */
  readonly hits: StudentHits | null;
}

export async function findStudents(
  context: ConsoleContext,
  signed: Signed,
  query: z.output<typeof searchQuery>,
): Promise<SearchModel> {
  const q = query.q ?? '';
  const hits =
    q.trim() === ''
      ? null
      : await context.stores.console.searchStudents(q, { limit: PAGE_SIZE, offset: (query.page - 1) * PAGE_SIZE });
  if (hits !== null) await signed.audit({ operation: 'student-search', outcome: 'allowed', subject: q });
  return { q, page: query.page, hits };
}

export function searchPage(view: View, { q, page, hits }: SearchModel): Page {
  const { t, f } = view;
  const pages = hits === null ? 0 : Math.min(MAX_PAGE, Math.ceil(hits.total / PAGE_SIZE));
  const results =
    hits === null
      ? ''
      : hits.total === 0
        ? html`<p role="status">${t.noneFound}</p>`
        : html`<p role="status">${t.found(hits.total, f.number(hits.total))}</p>
${stackTable(hits.items, [
  column(
    t.colName,
    (s) => html`<a href="${CONSOLE_BASE}/students/${encodeURIComponent(s.id)}"><bdi>${s.fullName}</bdi></a>`,
  ),
  column(t.colId, (s) => html`<bdi class="code">${s.id}</bdi>`),
  column(t.colSchool, (s) => html`<bdi>${s.schoolName ?? s.schoolKey}</bdi>`),
  column(t.colClass, (s) => html`<bdi>${s.classId ?? '–'}</bdi>`),
  column(t.colActive, (s) => (s.active ? t.yes : t.no)),
])}
${numberedPager(view, page, pages, (n) => `${CONSOLE_BASE}/students?q=${encodeURIComponent(q)}&page=${n}`)}`;
  return {
    title: t.studentsTitle,
    main: html`<form class="search" method="get" action="${CONSOLE_BASE}/students" role="search">
<div class="field"><label for="q">${t.searchStudents}</label><p class="hint" id="q-hint">${t.searchHint}</p>
<div class="search-row"><input id="q" name="q" type="search" maxlength="100" dir="auto" aria-describedby="q-hint" value="${q}"> <button type="submit">${t.search}</button></div></div>
</form>
${results}`,
    current: 'students',
  };
}

/** `abcd…wxyz (152 characters)`: enough to compare with what the phone shows, not enough to send to it. */
export function maskToken(token: string): string {
  if (token.length <= 12) return '…';
  return `${token.slice(0, 4)}…${token.slice(-4)}`;
}

export const studentQuery = z.object({ saved: text(8) });

export interface StudentModel {
  readonly student: RecordOf<'students'>;
  readonly school: RecordOf<'schools'> | null;
  readonly device: RecordOf<'devices'> | null;
  readonly notifications: readonly PushNotificationRow[];
  readonly absences: RecordPage<'absences'>['items'];
  readonly notes: RecordPage<'notes'>['items'];
  readonly refusedCalls: Awaited<ReturnType<ConsoleContext['stores']['console']['listRefusedCalls']>>;
  /** The push token shown whole (an operator asked, audited). */
  readonly reveal: boolean;
  /** What the page that sent here saved: `1` the student, `device` the device. */
  readonly saved: string | undefined;
}

/** A student's page, audited as a read (or a reveal of the token); null when there is no such student. */
export async function loadStudent(
  context: ConsoleContext,
  signed: Signed,
  id: string,
  reveal: boolean,
  saved?: string,
): Promise<StudentModel | null> {
  const admin = context.stores.admin;
  const student = await admin.getRecord('students', id);
  if (student === null) return null;
  const [school, device, notifications, absences, notes, refusedCalls] = await Promise.all([
    admin.getRecord('schools', student.school),
    student.deviceId === undefined || student.deviceId === null ? null : admin.getRecord('devices', student.deviceId),
    admin.listOutbox('push', { studentId: id, limit: LIST_MAX, offset: 0 }),
    admin.listRecords('absences', { studentId: id }, { limit: LIST_MAX, offset: 0 }),
    admin.listRecords('notes', { studentId: id }, { limit: LIST_MAX, offset: 0 }),
    context.stores.console.listRefusedCalls(id, LIST_MAX),
  ]);
  await signed.audit({
    operation: reveal ? 'reveal-token' : 'student',
    subjectKind: 'student',
    subject: id,
    outcome: 'allowed',
  });
  return {
    student,
    school,
    device,
    notifications: notifications.channel === 'push' ? notifications.items : [],
    absences: absences.items,
    notes: notes.items,
    refusedCalls,
    reveal,
    saved,
  };
}

export function studentPage(view: SignedInView, model: StudentModel | null): Page {
  const { t, f } = view;
  if (model === null)
    return { title: t.notFoundTitle, main: html`<p>${t.studentMissing}</p>`, current: 'students', status: 404 };
  const { student, school, device, reveal } = model;
  const id = student.id;
  const token = device?.token ?? null;
  const canReveal = allows(view.session.role, 'operator');
  const deviceBlock: Html =
    device === null
      ? html`<p class="due alert">${t.noDevice}</p>`
      : summaryList([
          [t.colId, html`<bdi class="code">${device.id}</bdi>`],
          [
            t.platform,
            html`${device.platform ?? '–'}${
              canReveal
                ? html` · <a href="${CONSOLE_BASE}/devices/${encodeURIComponent(device.id)}/edit?student=${encodeURIComponent(id)}">${t.editDevice}</a>`
                : ''
            }`,
          ],
          [
            t.pushToken,
            token === null || token === undefined
              ? html`<span class="alert">${t.noToken}</span>`
              : reveal
                ? html`<code class="code token">${token}</code><p class="hint">${t.tokenRevealed}</p>`
                : html`<bdi class="code">${maskToken(token)}</bdi> ${
                    canReveal
                      ? html`<form class="inline" method="post" action="${CONSOLE_BASE}/students/${encodeURIComponent(id)}/reveal">${csrfField(view)}<button type="submit" class="secondary">${t.reveal}</button></form>`
                      : ''
                  }`,
          ],
        ]);

  const notificationRows = stackTable(
    model.notifications,
    [
      column(
        t.colType,
        (n) =>
          html`<a href="${CONSOLE_BASE}/messages/push/${encodeURIComponent(n.id)}"><bdi>${typeName(view, n.type)}</bdi></a>`,
      ),
      column(t.colQueued, (n) => view.times.atSecond(n.createdAt)),
      column(
        t.colStatus,
        (n) =>
          html`<span class="${statusClass(n.status)}">${t.status[n.status === 'uncertain' ? 'uncertain' : n.status]}</span>`,
      ),
      column(t.colAttempts, (n) => f.number(n.attempts), true),
      column(t.colLastError, (n) => lastErrorText(view, 'push', n.lastError)),
      column(t.colSentAt, (n) => view.times.atSecond(n.sentAt)),
    ],
    { empty: t.noNotifications },
  );
  const refusedRows = stackTable(
    model.refusedCalls,
    [
      column(t.colTime, (r) => view.times.atSecond(r.at)),
      column(t.colCall, (r) => html`<bdi class="code">${r.operation}</bdi>`),
      column(t.colType, (r) => (r.type === null ? '–' : html`<bdi>${r.type}</bdi>`)),
      column(t.colStatus, () => html`<span class="alert">${t.status.refused}</span>`),
      column(t.colReason, (r) => refusalText(view, r.reason)),
    ],
    { empty: t.noRefused },
  );
  const absenceRows = stackTable(
    model.absences,
    [
      column(t.colDate, (a) => view.times.day(a.date)),
      column(t.colType, (a) => html`<bdi>${typeName(view, a.type)}</bdi>`),
      column(t.colReason, (a) => html`<bdi>${a.reason ?? '–'}</bdi>`),
      column(t.colSeen, (a) => (a.seen === true ? t.yes : t.no)),
    ],
    { empty: t.noAbsences },
  );
  const noteRows = stackTable(
    model.notes,
    [
      column(t.colDate, (n) => view.times.at(n.date)),
      column(t.colType, (n) => html`<bdi>${typeName(view, n.type)}</bdi>`),
      column(t.colText, (n) => html`<bdi>${n.text}</bdi>`),
      column(t.colState, (n) => (typeof n.state === 'string' ? noteStateName(view, n.state) : (n.state ?? '–'))),
    ],
    { empty: t.noNotes },
  );

  return {
    title: titled(t.studentTitle, student.fullName),
    main: html`${notice(model.saved === '1' ? t.studentSaved : model.saved === 'device' ? t.deviceSaved : null)}<p><a href="${CONSOLE_BASE}/students">${t.back}</a>${
      canReveal ? html` · <a href="${CONSOLE_BASE}/students/${encodeURIComponent(id)}/edit">${t.edit}</a>` : ''
    }</p>
${summaryList([
  [t.colId, html`<bdi class="code">${student.id}</bdi>`],
  [t.colSchool, html`<bdi>${school?.name ?? student.school}</bdi>`],
  [t.colClass, html`<bdi>${student.classId ?? '–'}</bdi>`],
  [t.colActive, student.active === '0' ? t.no : t.yes],
])}
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
    current: 'students',
  };
}
