// Schools and their students (docs/console.md#schools): browse the schools,
// then a school's students a page at a time, through the admin role's
// listRecords, the admin API's listing.
import type { Request, Response } from 'express';
import type { ConsoleContext, SignedPageHandler } from './context';
import { html } from '../shared/markup';
import { CONSOLE_BASE } from './respond';
import { allows, notice, sendView, type SignedInView } from './view';
import { eventsNotice, eventsSection } from './school-events';

const PAGE_SIZE = 50;
const MAX_PAGE = 2000;

const pageOf = (req: Request): number =>
  Math.min(MAX_PAGE, Math.max(1, Number.parseInt(String(req.query.page ?? '1'), 10) || 1));

function pager(view: SignedInView, pageNumber: number, total: number, link: (n: number) => string) {
  const { t, f } = view;
  const pages = Math.min(MAX_PAGE, Math.ceil(total / PAGE_SIZE));
  if (pages <= 1) return '';
  const label = t.pageOf(f.number(pageNumber), f.number(pages));
  return html`<nav class="pager" aria-label="${label}"><p>${label}</p>${
    pageNumber > 1 ? html`<a rel="prev" href="${link(pageNumber - 1)}">${t.previous}</a> ` : ''
  }${pageNumber < pages ? html`<a rel="next" href="${link(pageNumber + 1)}">${t.next}</a>` : ''}</nav>`;
}

export async function showSchools(
  context: ConsoleContext,
  view: SignedInView,
  req: Request,
  res: Response,
): Promise<void> {
  const { t } = view;
  const pageNumber = pageOf(req);
  const schools = await context.stores.admin.listRecords(
    'schools',
    {},
    { limit: PAGE_SIZE, offset: (pageNumber - 1) * PAGE_SIZE },
  );
  sendView(
    res,
    view,
    t.schoolsTitle,
    html`<table class="stack">
<thead><tr><th scope="col">${t.colName}</th><th scope="col">${t.colBaseUrl}</th></tr></thead>
<tbody>${schools.items.map(
      (s) =>
        html`<tr><td data-label="${t.colName}"><a href="${CONSOLE_BASE}/schools/students?school=${encodeURIComponent(s.baseUrl)}"><bdi>${s.name}</bdi></a></td><td data-label="${t.colBaseUrl}"><bdi class="code">${s.baseUrl}</bdi></td></tr>`,
    )}</tbody></table>
${pager(view, pageNumber, schools.total, (n) => `${CONSOLE_BASE}/schools?page=${n}`)}`,
    { current: 'schools' },
  );
}

export const showSchoolStudents: SignedPageHandler = async (context, view, req, res) => {
  const { t, f } = view;
  const baseUrl = typeof req.query.school === 'string' ? req.query.school.slice(0, 512) : '';
  const school = baseUrl === '' ? null : await context.stores.admin.getRecord('schools', baseUrl);
  if (school === null) {
    sendView(res, view, t.notFoundTitle, html`<p>${t.schoolMissing}</p>`, { status: 404, current: 'schools' });
    return;
  }
  // A school's list of students is a read of personal data.
  await context.audit({
    address: req.ip ?? null,
    account: view.session.account,
    operation: 'school',
    subjectKind: 'school',
    subject: school.baseUrl,
    outcome: 'allowed',
  });
  const pageNumber = pageOf(req);
  const events = await eventsSection(context, view, school.baseUrl);
  const students = await context.stores.admin.listRecords(
    'students',
    { school: school.baseUrl },
    { limit: PAGE_SIZE, offset: (pageNumber - 1) * PAGE_SIZE },
  );
  sendView(
    res,
    view,
    school.name,
    html`${notice(req.query.saved === '1' ? t.schoolSaved : null)}${eventsNotice(view, req)}<p><a href="${CONSOLE_BASE}/schools">${t.back}</a>${
      allows(view.session.role, 'operator')
        ? html` · <a href="${CONSOLE_BASE}/schools/edit?school=${encodeURIComponent(school.baseUrl)}">${t.editSchool}</a>`
        : ''
    }</p>
<section aria-labelledby="school-clock"><h2 id="school-clock">${t.schoolClock}</h2>
<dl class="summary-list">
<div><dt>${t.timeZone}</dt><dd><bdi class="code">${school.timeZone}</bdi></dd></div>
<div><dt>${t.quietHours}</dt><dd>${school.quietHours === null ? t.noQuietHours : html`<bdi class="code">${school.quietHours}</bdi>`}</dd></div>
</dl></section>
${events}
<h2>${t.navStudents}</h2>
<p role="status">${t.schoolStudents(students.total, f.number(students.total))}</p>
<table class="stack">
<thead><tr><th scope="col">${t.colName}</th><th scope="col">${t.colId}</th><th scope="col">${t.colClass}</th><th scope="col">${t.colActive}</th></tr></thead>
<tbody>${students.items.map(
      (s) => html`<tr>
<td data-label="${t.colName}"><a href="${CONSOLE_BASE}/students/${encodeURIComponent(s.id)}"><bdi>${s.fullName}</bdi></a></td>
<td data-label="${t.colId}"><bdi class="code">${s.id}</bdi></td>
<td data-label="${t.colClass}"><bdi>${s.classId ?? '–'}</bdi></td>
<td data-label="${t.colActive}">${s.active === '0' ? t.no : t.yes}</td>
</tr>`,
    )}</tbody></table>
${pager(view, pageNumber, students.total, (n) => `${CONSOLE_BASE}/schools/students?school=${encodeURIComponent(school.baseUrl)}&page=${n}`)}`,
    { current: 'schools' },
  );
};
