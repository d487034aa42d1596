// Importing a roster (operators, docs/console.md#import): upload a file, see
// the importer's dry run (what would be added, changed and refused, by row
// and field), apply it, download the reports. The importer and its rules are
// the ones `npm run import` runs (src/import); the jobs are in import-jobs.ts.
// Like the other pages, the handlers return models and the views are pure
// functions of them built from the partials; the upload streams the request's
// body and the report downloads write their own answers.
import { formatImportReport, FIELDS, LISTED_REJECTIONS_MAX, type FileReport, type ImportReport } from '../import';
import type { Rejection } from '../import/check-sources';
import type { CollectionReport } from '../import/importer';
import type { Reason } from '../import/reasons';
import { COLLECTIONS, type DataSetCollection } from '../store';
import type { ConsoleContext } from './context';
import { html, type Html } from '../shared/markup';
import { IMPORT_KEEP_MS, IMPORT_MAX_BYTES, safeFileName, type Job, type Upload } from './import-jobs';
import { reasonIn, rejectedValue } from './import-reasons';
import { isMultipart, MultipartError, streamMultipart } from './multipart';
import { column, confirmation, stackTable, summaryList } from './partials';
import { attachment, CONSOLE_BASE } from './respond';
import type { Answer, Page, Signed } from './route-table';
import { sameSecret } from './sessions';
import { forbidden } from './sign-in';
import { csrfField, errorSummary, titled, type SignedInView, type View } from './view';

/** Refused rows listed on the page; the downloadable report has them all. */
const LISTED_REFUSALS = 200;
const SIZE_TEXT = `${IMPORT_MAX_BYTES / 1024 / 1024} MiB`;

type Problem = { readonly field?: string; readonly text: string };

/** The upload form, with the problems of a refused upload above it. */
export function importFormPage(view: View, problems: readonly Problem[], chosen = '', status = 200): Page {
  const { t } = view;
  return {
    title: t.importTitle,
    status,
    current: 'import',
    main: html`${errorSummary(view, problems)}
<p>${t.importIntro(SIZE_TEXT)}</p>
<form class="narrow" method="post" action="${CONSOLE_BASE}/import" enctype="multipart/form-data" novalidate>
${csrfField(view)}
<div class="field"><label for="file">${t.importFile}</label><input id="file" name="file" type="file" accept=".csv,.json,text/csv,application/json"${problems.some((p) => p.field === 'file') ? html` aria-invalid="true"` : ''}></div>
<div class="field"><label for="collection">${t.importCollection}</label><p class="hint" id="collection-hint">${t.importCollectionHint}</p>
<select id="collection" name="collection" aria-describedby="collection-hint"><option value="">${t.importAuto}</option>${COLLECTIONS.map(
      (c) => html`<option value="${c}"${chosen === c ? html` selected` : ''}>${c}</option>`,
    )}</select></div>
<button type="submit">${t.importCheck}</button>
</form>
<p class="hint">${t.importKept(String(IMPORT_KEEP_MS / 60_000))}</p>`,
  };
}

/**
 * The upload: its CSRF token is in the multipart body, checked here before
 * the file is kept (index.ts defers it for this form only); the file goes to
 * the store in chunks as it arrives (upload-chunks.ts).
 */
export async function receiveUpload(context: ConsoleContext, signed: Signed): Promise<Answer> {
  const { view, req, res } = signed;
  const { t } = view;
  const refuse = async (status: number, problem: Problem, reason: string): Promise<Page> => {
    await signed.audit({ outcome: 'refused', reason });
    if (status === 413 || status === 429) res.setHeader('Connection', 'close');
    return importFormPage(view, [problem], '', status);
  };
  if (!isMultipart(req)) return refuse(400, { field: 'file', text: t.importNoFile }, 'invalid');
  // A file before a right token is counted, not kept: the form sends the token first.
  const receiving = context.imports.receive(view.session.account);
  if (receiving === null) {
    // Too many at once (import-jobs.ts): refused before the body is read, which is drained, not kept.
    req.resume();
    return refuse(429, { text: t.importBusy }, 'busy');
  }
  res.once('close', () => receiving.release());
  const csrfBefore = (fields: ReadonlyMap<string, string>) => sameSecret(fields.get('csrf'), view.session.csrf);
  let csrfBeforeFile = true;
  let form;
  let stored;
  try {
    form = await streamMultipart(
      req,
      { maxBytes: IMPORT_MAX_BYTES + 64 * 1024, maxParts: 5, maxFieldBytes: 1024 },
      (_field, _name, fieldsBefore) => {
        csrfBeforeFile = csrfBefore(fieldsBefore);
        return csrfBeforeFile ? receiving.sink : { write: () => Promise.resolve() };
      },
    );
    stored = await receiving.sink.finish();
  } catch (err) {
    await receiving.discard();
    if (!(err instanceof MultipartError)) throw err;
    return err.kind === 'too_large'
      ? refuse(413, { field: 'file', text: t.importTooLarge(SIZE_TEXT) }, 'too_large')
      : refuse(400, { field: 'file', text: t.importNoFile }, 'invalid');
  }
  if (!csrfBeforeFile || !csrfBefore(form.fields)) {
    await receiving.discard();
    await signed.audit({ operation: 'import', outcome: 'refused', reason: 'csrf' });
    forbidden(view, res, 'csrf');
    return;
  }
  const chosen = form.fields.get('collection') ?? '';
  const collection = (COLLECTIONS as readonly string[]).includes(chosen) ? (chosen as DataSetCollection) : undefined;
  const file = form.file;
  const fileName = file === null ? null : safeFileName(file.fileName);
  if (file === null || file.fileName === '' || file.size === 0 || fileName === null) {
    await receiving.discard();
    const named = file !== null && file.fileName !== '' && file.size > 0;
    return refuse(400, { field: 'file', text: named ? t.importBadName : t.importNoFile }, 'invalid');
  }
  // A JSON document names its collections itself; the choice is for CSV files.
  const upload = await context.imports.upload(
    { id: receiving.id, ...stored },
    view.session.account,
    fileName,
    /\.json$/i.test(fileName) ? undefined : collection,
  );
  if (upload === null) return refuse(409, { text: t.importBusy }, 'busy');
  await signed.audit({
    subject: `${fileName} (${upload.id})`,
    outcome: 'allowed',
    reason: `started: ${file.size} bytes${collection === undefined ? '' : `, ${collection}`}`,
  });
  return { redirect: `${CONSOLE_BASE}/import/${encodeURIComponent(upload.id)}` };
}

/** The page of an upload id unknown or expired. */
function missingPage(view: View): Page {
  return {
    title: view.t.notFoundTitle,
    status: 404,
    current: 'import',
    main: html`<p>${view.t.importMissing}</p><p><a href="${CONSOLE_BASE}/import">${view.t.importAnother}</a></p>`,
  };
}

/** An upload's page: its job under way, or its reports. Null: no such upload. */
export type UploadModel = Upload | null;

export const loadUpload = (context: ConsoleContext, id: string): Promise<UploadModel> => context.imports.get(id);

/** A job under way as a summary list: what it does and the rows done, then the bar. */
function progressOf(view: View, job: Job): Html {
  const { t, f } = view;
  const doing = job.state === 'queued' ? t.importQueued : job.stage === 'writing' ? t.importWriting : t.importChecking;
  return html`<div role="status">${summaryList([
    [t.importStage, doing],
    [t.importRowsDone, t.importProgress(f.number(job.done), f.number(job.total))],
  ])}
<progress max="${Math.max(job.total, 1)}" value="${job.done}">${job.done}</progress>
<p class="hint">${t.importRefresh}</p></div>`;
}

/** The field a refusal names: its parameter, or in a report kept from before the codes, its first word when that is a field. */
function fieldOf(r: Rejection): string {
  const named = r.params?.field;
  if (typeof named === 'string') return named;
  const word = /^([A-Za-z]+)\b/.exec(r.reason)?.[1] ?? '';
  return FIELDS[r.collection].find((field) => field.toLowerCase() === word.toLowerCase()) ?? '';
}

/** A file's notes as codes when each has one; in English words otherwise (a report kept from before them). */
const notesOf = (file: FileReport): readonly (Reason | { readonly reason: string })[] =>
  file.noteReasons !== undefined && file.noteReasons.length === file.notes.length
    ? file.noteReasons
    : file.notes.map((reason) => ({ reason }));

function fileReport(view: View, file: FileReport, dryRun: boolean): Html {
  const { t, f } = view;
  const n = (value: number | null | undefined) => (value === null || value === undefined ? '–' : f.number(value));
  // Counted from the collections: the report itself lists only the first refused rows (src/import/read-limits.ts).
  const unlisted =
    file.collections.reduce((sum, c) => sum + c.rejected, 0) - Math.min(file.rejected.length, LISTED_REFUSALS);
  const error = file.errorReason ?? (file.error === null ? null : { reason: file.error });
  return html`${error === null ? '' : html`<div class="error-summary" role="alert"><p>${reasonIn(view, error)}</p></div>`}
${
  file.collections.length === 0
    ? ''
    : stackTable<CollectionReport>(file.collections, [
        column(t.colCollection, (c) => c.collection),
        column(t.colAccepted, (c) => n(c.accepted), true),
        column(t.colAdded, (c) => n(dryRun ? c.wouldInsert : c.inserted), true),
        column(t.colChanged, (c) => n(dryRun ? c.wouldUpdate : c.updated), true),
        column(t.colRefused, (c) => n(c.rejected), true),
      ])
}
${
  file.rejected.length === 0
    ? ''
    : html`<h2>${t.importRefusedRows}</h2>
${stackTable<Rejection>(file.rejected.slice(0, LISTED_REFUSALS), [
  column(t.colRow, (r) => f.number(r.line), true),
  column(t.colCollection, (r) => r.collection),
  // A field's name is an identifier: left to right, never broken.
  column(t.colField, (r) => html`<bdi class="code" dir="ltr">${fieldOf(r) || '–'}</bdi>`),
  column(t.colValue, (r) => rejectedValue(r)),
  column(t.colReason, (r) => reasonIn(view, r)),
])}
${unlisted > 0 ? html`<p>${t.importRefusedMore(f.number(unlisted), f.number(LISTED_REJECTIONS_MAX))}</p>` : ''}`
}
${file.notes.length === 0 ? '' : html`<h2>${t.importNotes}</h2><ul>${notesOf(file).map((note) => html`<li>${reasonIn(view, note)}</li>`)}</ul>`}`;
}

const writable = (report: ImportReport): boolean =>
  report.files.some((file) => file.collections.some((c) => c.accepted > 0));

/** The dry run's question: apply what it found (the confirmation partial), or import another file instead. */
function applyStep(view: SignedInView, base: string, report: ImportReport): Html {
  const { t } = view;
  if (!writable(report)) return html`<p>${t.importNothing}</p>`;
  return html`<div class="apply">${confirmation(view, {
    question: html`<p class="hint">${t.importApplyHint}</p>`,
    action: `${base}/apply`,
    yes: t.importApply,
    back: `${CONSOLE_BASE}/import`,
  })}</div>`;
}

export function uploadPage(view: SignedInView, upload: UploadModel): Page {
  if (upload === null) return missingPage(view);
  const { t } = view;
  const job = upload.apply ?? upload.check;
  const base = `${CONSOLE_BASE}/import/${encodeURIComponent(upload.id)}`;
  const title = titled(upload.apply === null ? t.importDryRunTitle : t.importAppliedTitle, upload.fileName);
  if (job === null || job.state === 'running' || job.state === 'queued') {
    // A meta refresh, as the console runs no script on this page (docs/console.md#security).
    return { title, main: job === null ? '' : progressOf(view, job), current: 'import', refresh: 2 };
  }
  const downloads = (kind: 'check' | 'apply') => {
    const label = kind === 'check' ? t.importDownloadCheck : t.importDownloadApply;
    return html`<li><a href="${base}/${kind}.txt" download>${label('text')}</a></li>
<li><a href="${base}/${kind}.json" download>${label('JSON')}</a></li>`;
  };
  const report = job.report;
  const body =
    job.state === 'failed' || report === null
      ? html`<div class="error-summary" role="alert"><p>${t.importFailed}</p></div>`
      : html`<p>${job.kind === 'check' ? t.importDryRunNote : t.importAppliedNote}</p>
${report.files.map((file) => fileReport(view, file, job.kind === 'check'))}
${job.kind === 'check' ? applyStep(view, base, report) : ''}`;
  return {
    title,
    current: 'import',
    main: html`${body}
<ul class="downloads">${upload.check?.report == null ? '' : downloads('check')}${upload.apply?.report == null ? '' : downloads('apply')}</ul>
<p><a href="${CONSOLE_BASE}/import">${t.importAnother}</a></p>`,
  };
}

/** Queues the apply of a checked upload; a second click shows that apply; anything else that did not start is 409. */
export async function applyUpload(context: ConsoleContext, signed: Signed, id: string): Promise<Answer> {
  const { view } = signed;
  const upload = await context.imports.get(id);
  if (upload === null) return missingPage(view);
  const started = await context.imports.apply(upload.id);
  await signed.audit({
    subject: `${upload.fileName} (${upload.id})`,
    outcome: started === 'started' ? 'allowed' : 'refused',
    reason: started === 'started' ? 'started' : started === 'applied' ? 'applied' : 'busy',
  });
  if (started !== 'started' && started !== 'applied')
    return {
      title: view.t.importTitle,
      status: 409,
      current: 'import',
      main: html`${errorSummary(view, [{ text: view.t.importBusy }])}`,
    };
  return { redirect: `${CONSOLE_BASE}/import/${encodeURIComponent(upload.id)}` };
}

/** A report as a file: the download writes its own answer; a missing one is the missing page. */
export async function downloadReport(
  context: ConsoleContext,
  signed: Signed,
  id: string,
  kind: 'check' | 'apply',
  format: 'txt' | 'json',
): Promise<Answer> {
  const { res } = signed;
  const upload = await context.imports.get(id);
  const report = upload?.[kind]?.report ?? null;
  if (upload === null || report === null) return missingPage(signed.view);
  // A report names rows and keys of a roster: reading it is recorded as the student pages are.
  await signed.audit({ subject: `${upload.fileName} (${upload.id})`, outcome: 'allowed', reason: `${kind}.${format}` });
  const name = `${upload.fileName.replace(/\.(csv|json)$/i, '')}-${kind === 'check' ? 'dry-run' : 'import'}.${format}`;
  res.status(200);
  res.setHeader('Content-Disposition', attachment(name));
  if (format === 'json') {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(`${JSON.stringify({ file: upload.fileName, kind, account: upload.account, ...report }, null, 1)}\n`);
  } else {
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end(formatImportReport(report));
  }
}
