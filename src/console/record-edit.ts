// Editing one record in a form (operators, docs/console.md#editing-records):
// the admin API's PATCH for a few fields of a collection. The fields are
// checked by the collection's own schema (src/store/collections/, the rules
// of the import and of the admin API) and written by the admin role's
// changeRecord, whose refusals are the import's messages; a refusal is named
// at the top of the form with a link to its field, and nothing changes.
// A student, a school and a device are edited this way (student-edit.ts,
// school-edit.ts, device-edit.ts).
import { z } from 'zod';
import { InvalidDataSetError, type DataSetCollection } from '../store';
import type { ConsoleContext } from './context';
import { html } from '../shared/markup';
import { foreignText, issueText } from './validation';
import type { Messages } from './i18n';
import type { Page, Redirect, Signed } from './route-table';
import { maskToken } from './students';
import { csrfField, errorSummary, type PageOptions, type PageTitle, type SignedInView } from './view';

export interface EditField {
  /** The record's field, and the form's. */
  readonly name: string;
  /** The element's id, linked from the error summary. */
  readonly id: string;
  readonly label: (t: Messages) => string;
  readonly hint?: (t: Messages) => string;
  /** A text input, or a select of these values. */
  readonly options?: readonly { readonly value: string; readonly label: (t: Messages) => string }[];
  readonly maxLength?: number;
  readonly dir: 'auto' | 'ltr';
  /** An empty value clears the field (null), as null does in the admin API. */
  readonly clearable?: boolean;
  /** Never shown in the form; an empty value keeps what is stored (a push token). */
  readonly secret?: boolean;
  /** Kept as typed (a name); other values are trimmed. */
  readonly untrimmed?: boolean;
}

export interface EditSpec {
  readonly collection: DataSetCollection;
  readonly fields: readonly EditField[];
  /** What the admin API's PATCH takes for these fields (the collection's schema, picked and partial). */
  readonly patch: z.ZodType<Record<string, unknown>>;
  readonly operation: string;
  readonly subjectKind: 'student' | 'school' | 'device';
  readonly title: (t: Messages, record: Record<string, unknown>) => PageTitle;
  /** The form's action, the way back, and where a save leads. */
  readonly action: string;
  readonly back: string;
  readonly saved: string;
  readonly missing: (t: Messages) => string;
  readonly current: PageOptions['current'];
}

type Values = Record<string, string>;

function editPage(
  view: SignedInView,
  spec: EditSpec,
  record: Record<string, unknown>,
  values: Values,
  problems: { field: string; text: string }[],
): Page {
  const { t } = view;
  const value = (field: EditField) =>
    field.secret === true ? '' : (values[field.name] ?? String(record[field.name] ?? ''));
  const invalid = (field: EditField) => (problems.some((p) => p.field === field.id) ? html` aria-invalid="true"` : '');
  const control = (field: EditField) => {
    const hintId = `${field.id}-hint`;
    const described = field.hint === undefined ? '' : html` aria-describedby="${hintId}"`;
    const input =
      field.options === undefined
        ? html`<input id="${field.id}" name="${field.name}" type="text" dir="${field.dir}"${field.maxLength === undefined ? '' : html` maxlength="${field.maxLength}"`}${field.secret === true ? html` autocomplete="off"` : ''}${described} value="${value(field)}"${invalid(field)}>`
        : html`<select id="${field.id}" name="${field.name}"${described}${invalid(field)}>${field.options.map(
            (option) =>
              html`<option value="${option.value}"${value(field) === option.value ? html` selected` : ''}>${option.label(t)}</option>`,
          )}</select>`;
    return html`<div class="field"><label for="${field.id}">${field.label(t)}</label>${
      field.hint === undefined ? '' : html`<p class="hint" id="${hintId}">${field.hint(t)}</p>`
    }${input}</div>`;
  };
  return {
    title: spec.title(t, record),
    main: html`${errorSummary(view, problems)}
<p><a href="${spec.back}">${t.back}</a></p>
<form class="narrow" method="post" action="${spec.action}" novalidate>
${csrfField(view)}
${spec.fields.map(control)}
<button type="submit">${t.save}</button>
</form>`,
    current: spec.current,
    status: problems.length > 0 ? 400 : 200,
  };
}

async function stored(context: ConsoleContext, spec: EditSpec, key: string): Promise<Record<string, unknown> | null> {
  return await context.stores.admin.getRecord(spec.collection, key);
}

const notFound = (view: SignedInView, spec: EditSpec): Page => ({
  title: view.t.notFoundTitle,
  main: html`<p>${spec.missing(view.t)}</p>`,
  status: 404,
  current: spec.current,
});

/** The form: its fields are read by the spec. */
export const editForm = z.record(z.string(), z.unknown());

export async function showEdit(
  context: ConsoleContext,
  view: SignedInView,
  spec: EditSpec,
  key: string,
): Promise<Page> {
  const record = await stored(context, spec, key);
  return record === null ? notFound(view, spec) : editPage(view, spec, record, {}, []);
}

export async function saveEdit(
  context: ConsoleContext,
  signed: Signed,
  spec: EditSpec,
  key: string,
  body: Record<string, unknown>,
): Promise<Page | Redirect> {
  const { view } = signed;
  const values: Values = {};
  for (const field of spec.fields) {
    const given = body[field.name];
    if (typeof given === 'string') values[field.name] = given;
  }
  const patch: Record<string, unknown> = {};
  for (const field of spec.fields) {
    const value = values[field.name];
    if (value === undefined) continue;
    if (value.trim() === '' && field.secret === true) continue;
    patch[field.name] =
      value.trim() === '' && field.clearable === true ? null : field.untrimmed === true ? value : value.trim();
  }
  const current = await stored(context, spec, key);
  if (current === null) return notFound(view, spec);
  const fieldId = (name: string | undefined) => spec.fields.find((f) => f.name === name)?.id ?? spec.fields[0].id;
  const labelOf = (name: string) => spec.fields.find((f) => f.name === name)?.label(view.t) ?? name;
  const audit = (outcome: 'allowed' | 'refused', reason: string) =>
    signed.audit({ operation: spec.operation, subjectKind: spec.subjectKind, subject: key, outcome, reason });
  const refuse = async (problems: { field: string; text: string }[]) => {
    await audit('refused', 'invalid');
    return editPage(view, spec, current, values, problems);
  };
  const parsed = spec.patch.safeParse(patch);
  if (!parsed.success)
    return refuse(
      parsed.error.issues.map((issue) => {
        const name = String(issue.path[0]);
        return { field: fieldId(name), text: `${labelOf(name)}: ${issueText(view, issue)}` };
      }),
    );
  try {
    await context.stores.admin.changeRecord(spec.collection, key, (record) =>
      record === null ? { refuse: 'not_found' } : { write: { ...record, ...parsed.data } },
    );
  } catch (err) {
    if (!(err instanceof InvalidDataSetError)) throw err;
    const name = /\.(\w+)$/.exec(err.path)?.[1];
    return refuse([
      {
        field: fieldId(name),
        text: foreignText(view, err.message.replace(new RegExp(`^${spec.collection}\\[0\\]\\.`), '')),
      },
    ]);
  }
  await audit('allowed', changeText(spec, current, parsed.data));
  return { redirect: spec.saved };
}

/** A changed value as the audit trail keeps it: cut short, a secret (a push token) by its ends only. */
function auditValue(field: EditSpec['fields'][number] | undefined, value: unknown): string {
  if (value === null || value === undefined || value === '') return '–';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (field?.secret === true) return maskToken(text);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/**
 * What an edit changed, for the audit trail's reason: `classId: 7A -> 7B;
 * active: 1 -> 0` (docs/console.md#audit-trail), the fields left as they were
 * left out; `no change` when none changed.
 */
export function changeText(spec: EditSpec, before: Record<string, unknown>, after: Record<string, unknown>): string {
  const changes: string[] = [];
  for (const [name, value] of Object.entries(after)) {
    const field = spec.fields.find((f) => f.name === name);
    const old = auditValue(field, before[name]);
    const now = auditValue(field, value);
    if (old !== now || (field?.secret === true && before[name] !== value)) changes.push(`${name}: ${old} -> ${now}`);
  }
  return changes.length === 0 ? 'no change' : changes.join('; ').slice(0, 500);
}
