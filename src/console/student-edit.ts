// Editing a student (operators, docs/console.md#editing-a-student): the
// admin API's PATCH in a form. The fields are checked by the collection's own
// schema (src/store/collections/students.ts, the rules of the import and of
// the admin API) and written by the admin role's changeRecord, whose refusals
// (an unknown school, say) are the import's messages.
import type { Request, Response } from 'express';
import { COLLECTION_OF, InvalidDataSetError, type DataSetStudent } from '../store';
import type { ConsoleContext } from './context';
import { html } from './html';
import { CONSOLE_BASE, redirect, sendPage } from './respond';
import { csrfField, errorSummary, page, type SignedIn, type View } from './view';

const EDITED = ['fullName', 'classId', 'deviceId', 'active'] as const;
type Edited = (typeof EDITED)[number];
const FIELD_ID: Readonly<Record<Edited, string>> = {
  fullName: 'full-name',
  classId: 'class-id',
  deviceId: 'device-id',
  active: 'active',
};
/** What the admin API's PATCH takes, for the fields this form has. */
const PATCH = COLLECTION_OF.students.schema
  .pick({ fullName: true, classId: true, deviceId: true, active: true })
  .partial();

type Values = Partial<Record<Edited, string>>;

const labelOf = (view: View, field: Edited): string =>
  ({ fullName: view.t.fullName, classId: view.t.classId, deviceId: view.t.deviceId, active: view.t.activeLabel })[
    field
  ] ?? field;

function editForm(
  view: View,
  id: string,
  student: DataSetStudent,
  values: Values,
  problems: { field: string; text: string }[],
) {
  const { t } = view;
  const value = (field: Edited) => values[field] ?? String(student[field] ?? '');
  const invalid = (field: Edited) =>
    problems.some((p) => p.field === FIELD_ID[field]) ? html` aria-invalid="true"` : '';
  const active = value('active') === '0' ? '0' : '1';
  return page(
    view,
    t.editStudentTitle(student.fullName),
    html`${errorSummary(view, problems)}
<p><a href="${CONSOLE_BASE}/students/${encodeURIComponent(id)}">${t.back}</a></p>
<form class="narrow" method="post" action="${CONSOLE_BASE}/students/${encodeURIComponent(id)}/edit" novalidate>
${csrfField(view)}
<div class="field"><label for="full-name">${t.fullName}</label><input id="full-name" name="fullName" type="text" dir="auto" maxlength="300" value="${value('fullName')}"${invalid('fullName')}></div>
<div class="field"><label for="class-id">${t.classId}</label><input id="class-id" name="classId" type="text" dir="ltr" maxlength="100" value="${value('classId')}"${invalid('classId')}></div>
<div class="field"><label for="device-id">${t.deviceId}</label><p class="hint" id="device-hint">${t.deviceHint}</p><input id="device-id" name="deviceId" type="text" dir="ltr" maxlength="200" aria-describedby="device-hint" value="${value('deviceId')}"${invalid('deviceId')}></div>
<div class="field"><label for="active">${t.activeLabel}</label><select id="active" name="active"><option value="1"${active === '1' ? html` selected` : ''}>${t.yes}</option><option value="0"${active === '0' ? html` selected` : ''}>${t.no}</option></select></div>
<button type="submit">${t.save}</button>
</form>`,
    { current: 'students' },
  );
}

export async function showEditStudent(context: ConsoleContext, view: View, res: Response, id: string): Promise<void> {
  const student = await context.stores.admin.getRecord('students', id);
  if (student === null) {
    sendPage(res, 404, page(view, view.t.notFoundTitle, html`<p>${view.t.studentMissing}</p>`));
    return;
  }
  sendPage(res, 200, editForm(view, id, student, {}, []));
}

export async function saveStudent(
  context: ConsoleContext,
  view: View,
  req: Request,
  res: Response,
  id: string,
): Promise<void> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const values: Values = {};
  for (const field of EDITED) if (typeof body[field] === 'string') values[field] = body[field];
  // An empty optional field clears it, as null does in the admin API.
  const patch = Object.fromEntries(
    Object.entries(values).map(([field, value]) => [
      field,
      value.trim() === '' && (field === 'classId' || field === 'deviceId')
        ? null
        : field === 'fullName'
          ? value
          : value.trim(),
    ]),
  );
  const current = await context.stores.admin.getRecord('students', id);
  if (current === null) {
    sendPage(res, 404, page(view, view.t.notFoundTitle, html`<p>${view.t.studentMissing}</p>`));
    return;
  }
  const parsed = PATCH.safeParse(patch);
  const refuse = async (problems: { field: string; text: string }[]) => {
    await context.audit({
      address: req.ip ?? null,
      account: (view.session as SignedIn).account,
      operation: 'student-edit',
      subjectKind: 'student',
      subject: id,
      outcome: 'refused',
      reason: 'invalid',
    });
    sendPage(res, 400, editForm(view, id, current, values, problems));
  };
  if (!parsed.success) {
    await refuse(
      parsed.error.issues.map((issue) => {
        const field = String(issue.path[0]) as Edited;
        return { field: FIELD_ID[field] ?? 'full-name', text: `${labelOf(view, field)}: ${issue.message}` };
      }),
    );
    return;
  }
  try {
    await context.stores.admin.changeRecord('students', id, (stored) =>
      stored === null ? { refuse: 'not_found' } : { write: { ...stored, ...parsed.data } },
    );
  } catch (err) {
    if (!(err instanceof InvalidDataSetError)) throw err;
    const field = /\.(\w+)$/.exec(err.path)?.[1] as Edited | undefined;
    await refuse([
      { field: FIELD_ID[field ?? 'fullName'] ?? 'full-name', text: err.message.replace(/^students\[0\]\./, '') },
    ]);
    return;
  }
  await context.audit({
    address: req.ip ?? null,
    account: (view.session as SignedIn).account,
    operation: 'student-edit',
    subjectKind: 'student',
    subject: id,
    outcome: 'allowed',
    reason: Object.keys(parsed.data).join(' '),
  });
  redirect(res, `${CONSOLE_BASE}/students/${encodeURIComponent(id)}?saved=1`);
}
