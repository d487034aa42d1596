// Schools and their students (docs/console.md#schools): browse the schools,
// then a school's students a page at a time, through the admin role's
// listRecords, the admin API's listing.
import { z } from 'zod';
import type { RecordOf, RecordPage } from '../store';
import type { ConsoleContext } from './context';
import { html } from '../shared/markup';
import { column, numberedPager, stackTable, summaryList } from './partials';
import { CONSOLE_BASE } from './respond';
import { pageNumber, text, type Page, type Signed } from './route-table';
import { allows, notice, type SignedInView, type View } from './view';
import { eventsNotice, eventsSection, type EventsFound } from './school-events';

const PAGE_SIZE = 50;
const MAX_PAGE = 2000;

const pagesOf = (total: number): number => Math.min(MAX_PAGE, Math.ceil(total / PAGE_SIZE));
const pageOf = (n: number) => ({ limit: PAGE_SIZE, offset: (n - 1) * PAGE_SIZE });

export const schoolsQuery = z.object({ page: pageNumber(MAX_PAGE) });

export interface SchoolsModel {
  readonly page: number;
  readonly schools: RecordPage<'schools'>;
}

export async function loadSchools(context: ConsoleContext, page: number): Promise<SchoolsModel> {
  return { page, schools: await context.stores.admin.listRecords('schools', {}, pageOf(page)) };
}

export function schoolsPage(view: View, model: SchoolsModel): Page {
  const { t } = view;
  return {
    title: t.schoolsTitle,
    main: html`${stackTable(model.schools.items, [
      column(
        t.colName,
        (s) =>
          html`<a href="${CONSOLE_BASE}/schools/students?school=${encodeURIComponent(s.baseUrl)}"><bdi>${s.name}</bdi></a>`,
      ),
      column(t.colBaseUrl, (s) => html`<bdi class="code">${s.baseUrl}</bdi>`),
    ])}
${numberedPager(view, model.page, pagesOf(model.schools.total), (n) => `${CONSOLE_BASE}/schools?page=${n}`)}`,
    current: 'schools',
  };
}

export const schoolQuery = z.object({
  school: text(512),
  page: pageNumber(MAX_PAGE),
  saved: text(8),
  events: text(16),
});

export interface SchoolModel {
  readonly school: RecordOf<'schools'>;
  readonly events: EventsFound;
  readonly page: number;
  readonly students: RecordPage<'students'>;
  /** What the page that sent here changed: the school (`saved=1`), its events (`events=`). */
  readonly saved: boolean;
  readonly eventsDone: string | undefined;
}

/** A school's page: its clock, its event subscription and its students; null when there is no such school. */
export async function loadSchool(
  context: ConsoleContext,
  signed: Signed,
  query: z.output<typeof schoolQuery>,
): Promise<SchoolModel | null> {
  const baseUrl = query.school ?? '';
  const school = baseUrl === '' ? null : await context.stores.admin.getRecord('schools', baseUrl);
  if (school === null) return null;
  // A school's list of students is a read of personal data.
  await signed.audit({ operation: 'school', subjectKind: 'school', subject: school.baseUrl, outcome: 'allowed' });
  const [events, students] = await Promise.all([
    context.stores.admin.getEventSubscription(school.baseUrl),
    context.stores.admin.listRecords('students', { school: school.baseUrl }, pageOf(query.page)),
  ]);
  return { school, events, page: query.page, students, saved: query.saved === '1', eventsDone: query.events };
}

export function schoolPage(view: SignedInView, model: SchoolModel | null): Page {
  const { t, f } = view;
  if (model === null)
    return { title: t.notFoundTitle, main: html`<p>${t.schoolMissing}</p>`, status: 404, current: 'schools' };
  const { school, students } = model;
  return {
    title: school.name,
    main: html`${notice(model.saved ? t.schoolSaved : null)}${eventsNotice(view, model.eventsDone)}<p><a href="${CONSOLE_BASE}/schools">${t.back}</a>${
      allows(view.session.role, 'operator')
        ? html` · <a href="${CONSOLE_BASE}/schools/edit?school=${encodeURIComponent(school.baseUrl)}">${t.editSchool}</a>`
        : ''
    }</p>
<section aria-labelledby="school-clock"><h2 id="school-clock">${t.schoolClock}</h2>
${summaryList([
  [t.timeZone, html`<bdi class="code">${school.timeZone}</bdi>`],
  [t.quietHours, school.quietHours === null ? t.noQuietHours : html`<bdi class="code">${school.quietHours}</bdi>`],
])}</section>
${eventsSection(view, school.baseUrl, model.events)}
<h2>${t.navStudents}</h2>
<p role="status">${t.schoolStudents(students.total, f.number(students.total))}</p>
${stackTable(students.items, [
  column(
    t.colName,
    (s) => html`<a href="${CONSOLE_BASE}/students/${encodeURIComponent(s.id)}"><bdi>${s.fullName}</bdi></a>`,
  ),
  column(t.colId, (s) => html`<bdi class="code">${s.id}</bdi>`),
  column(t.colClass, (s) => html`<bdi>${s.classId ?? '–'}</bdi>`),
  column(t.colActive, (s) => (s.active === '0' ? t.no : t.yes)),
])}
${numberedPager(
  view,
  model.page,
  pagesOf(students.total),
  (n) => `${CONSOLE_BASE}/schools/students?school=${encodeURIComponent(school.baseUrl)}&page=${n}`,
)}`,
    current: 'schools',
  };
}
