// Importing a roster (operators, docs/console.md#import): upload a file, see
// the importer's dry run (what would be added, changed and refused, by row
// and field), apply it, download the reports. The importer and its rules are
// the ones `npm run import` runs (src/import); the jobs are in import-jobs.ts.
import type { Request, Response } from 'express';
import { formatImportReport, FIELDS, LISTED_REJECTIONS_MAX, type FileReport, type ImportReport } from '../import';
import { COLLECTIONS, type DataSetCollection } from '../store';
import type { ConsoleContext, SignedPageHandler } from './context';
import { html, type Html } from '../shared/markup';
import { IMPORT_KEEP_MS, IMPORT_MAX_BYTES, safeFileName, type Job } from './import-jobs';
import { isMultipart, MultipartError, streamMultipart } from './multipart';
import { attachment, CONSOLE_BASE, redirect, sendPage } from './respond';
import { sameSecret } from './sessions';
import { forbidden } from './sign-in';
import { csrfField, errorSummary, page, sendView, titled, type SignedInView, type View } from './view';

/** Refused rows listed on the page; the downloadable report has them all. */
const LISTED_REFUSALS = 200;
const SIZE_TEXT = `${IMPORT_MAX_BYTES / 1024 / 1024} MiB`;

const accountOf = (view: SignedInView): string => view.session.account;

function importForm(view: View, problems: readonly { field?: string; text: string }[], chosen = ''): Html {
  const { t } = view;
  return page(
    view,
    t.importTitle,
    html`${errorSummary(view, problems)}
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
    { current: 'import' },
  );
}

export function showImport(view: View, res: Response): void {
  sendPage(res, 200, importForm(view, []));
}

/** The upload: its CSRF token is in the multipart body, checked here (index.ts defers it for this form only). */
export async function receiveUpload(
  context: ConsoleContext,
  view: SignedInView,
  req: Request,
  res: Response,
): Promise<void> {
  const { t } = view;
  const refuse = async (status: number, problem: { field?: string; text: string }, reason: string) => {
    await context.audit({
      address: req.ip ?? null,
      account: accountOf(view),
      operation: 'import-check',
      outcome: 'refused',
      reason,
    });
    if (status === 413 || status === 429) res.setHeader('Connection', 'close');
    sendPage(res, status, importForm(view, [problem]));
  };
  if (!isMultipart(req)) {
    await refuse(400, { field: 'file', text: t.importNoFile }, 'invalid');
    return;
  }
  // The file goes to the store in chunks as it arrives (upload-chunks.ts), and only after the form's
  // CSRF token, which the form sends first: a file before a right token is counted, not kept.
  const receiving = context.imports.receive(accountOf(view));
  if (receiving === null) {
    // Too many at once (import-jobs.ts): refused before the body is read, which is drained, not kept.
    req.resume();
    await refuse(429, { text: t.importBusy }, 'busy');
    return;
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
    if (err.kind === 'too_large') await refuse(413, { field: 'file', text: t.importTooLarge(SIZE_TEXT) }, 'too_large');
    else await refuse(400, { field: 'file', text: t.importNoFile }, 'invalid');
    return;
  }
  if (!csrfBeforeFile || !csrfBefore(form.fields)) {
    await receiving.discard();
    await context.audit({
      address: req.ip ?? null,
      account: accountOf(view),
      operation: 'import',
      outcome: 'refused',
      reason: 'csrf',
    });
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
    await refuse(400, { field: 'file', text: named ? t.importBadName : t.importNoFile }, 'invalid');
    return;
  }
  // A JSON document names its collections itself; the choice is for CSV files.
  const upload = await context.imports.upload(
    { id: receiving.id, ...stored },
    accountOf(view),
    fileName,
    /\.json$/i.test(fileName) ? undefined : collection,
  );
  if (upload === null) {
    await refuse(409, { text: t.importBusy }, 'busy');
    return;
  }
  await context.audit({
    address: req.ip ?? null,
    account: accountOf(view),
    operation: 'import-check',
    subject: `${fileName} (${upload.id})`,
    outcome: 'allowed',
    reason: `started: ${file.size} bytes${collection === undefined ? '' : `, ${collection}`}`,
  });
  redirect(res, `${CONSOLE_BASE}/import/${encodeURIComponent(upload.id)}`);
}

function missing(view: View, res: Response): void {
  sendView(
    res,
    view,
    view.t.notFoundTitle,
    html`<p>${view.t.importMissing}</p><p><a href="${CONSOLE_BASE}/import">${view.t.importAnother}</a></p>`,
    { status: 404, current: 'import' },
  );
}

function progressOf(view: View, job: Job): Html {
  const { t, f } = view;
  const doing = job.state === 'queued' ? t.importQueued : job.stage === 'writing' ? t.importWriting : t.importChecking;
  return html`<div role="status"><p>${doing}: ${t.importProgress(f.number(job.done), f.number(job.total))}</p>
<progress max="${Math.max(job.total, 1)}" value="${job.done}">${job.done}</progress>
<p class="hint">${t.importRefresh}</p></div>`;
}

/** The field a refusal names: its first word when that is one of the collection's fields. */
function fieldOf(collection: DataSetCollection, reason: string): string {
  const word = /^([A-Za-z]+)\b/.exec(reason)?.[1] ?? '';
  return FIELDS[collection].find((field) => field.toLowerCase() === word.toLowerCase()) ?? '';
}

function fileTable(view: View, file: FileReport, dryRun: boolean): Html {
  const { t, f } = view;
  const n = (value: number | null | undefined) => (value === null || value === undefined ? '–' : f.number(value));
  const rows = file.collections.map(
    (c) => html`<tr><td data-label="${t.colCollection}">${c.collection}</td>
<td data-label="${t.colAccepted}">${n(c.accepted)}</td>
<td data-label="${t.colAdded}">${n(dryRun ? c.wouldInsert : c.inserted)}</td>
<td data-label="${t.colChanged}">${n(dryRun ? c.wouldUpdate : c.updated)}</td>
<td data-label="${t.colRefused}">${n(c.rejected)}</td></tr>`,
  );
  // Counted from the collections: the report itself lists only the first refused rows (src/import/read-limits.ts).
  const unlisted =
    file.collections.reduce((sum, c) => sum + c.rejected, 0) - Math.min(file.rejected.length, LISTED_REFUSALS);
  const refused = file.rejected.slice(0, LISTED_REFUSALS).map(
    (r) => html`<tr><td data-label="${t.colRow}">${f.number(r.line)}</td>
<td data-label="${t.colCollection}">${r.collection}</td>
<td data-label="${t.colField}"><bdi class="code">${fieldOf(r.collection, r.reason) || '–'}</bdi></td>
<td data-label="${t.colReason}"><bdi dir="ltr" lang="en">${r.reason}</bdi></td></tr>`,
  );
  return html`${file.error === null ? '' : html`<div class="error-summary" role="alert"><p><bdi dir="ltr" lang="en">${file.error}</bdi></p></div>`}
${
  file.collections.length === 0
    ? ''
    : html`<table class="stack">
<thead><tr><th scope="col">${t.colCollection}</th><th scope="col">${t.colAccepted}</th><th scope="col">${t.colAdded}</th><th scope="col">${t.colChanged}</th><th scope="col">${t.colRefused}</th></tr></thead>
<tbody>${rows}</tbody></table>`
}
${
  file.rejected.length === 0
    ? ''
    : html`<h2>${t.importRefusedRows}</h2>
<table class="stack">
<thead><tr><th scope="col">${t.colRow}</th><th scope="col">${t.colCollection}</th><th scope="col">${t.colField}</th><th scope="col">${t.colReason}</th></tr></thead>
<tbody>${refused}</tbody></table>
${unlisted > 0 ? html`<p>${t.importRefusedMore(f.number(unlisted), f.number(LISTED_REJECTIONS_MAX))}</p>` : ''}`
}
${file.notes.length === 0 ? '' : html`<h2>${t.importNotes}</h2><ul>${file.notes.map((note) => html`<li><bdi dir="ltr" lang="en">${note}</bdi></li>`)}</ul>`}`;
}

const writable = (report: ImportReport): boolean =>
  report.files.some((file) => file.collections.some((c) => c.accepted > 0));

export async function showUpload(context: ConsoleContext, view: View, res: Response, id: string): Promise<void> {
  const { t } = view;
  const upload = await context.imports.get(id);
  if (upload === null) {
    missing(view, res);
    return;
  }
  const job = upload.apply ?? upload.check;
  const base = `${CONSOLE_BASE}/import/${encodeURIComponent(upload.id)}`;
  const title = titled(upload.apply === null ? t.importDryRunTitle : t.importAppliedTitle, upload.fileName);
  if (job === null || job.state === 'running' || job.state === 'queued') {
    // A meta refresh, as the console runs no script (docs/console.md#security).
    sendView(res, view, title, html`${job === null ? '' : progressOf(view, job)}`, { current: 'import', refresh: 2 });
    return;
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
${report.files.map((file) => fileTable(view, file, job.kind === 'check'))}
${
  job.kind === 'check'
    ? writable(report)
      ? html`<form class="apply" method="post" action="${base}/apply">${csrfField(view)}<p class="hint">${t.importApplyHint}</p><button type="submit">${t.importApply}</button></form>`
      : html`<p>${t.importNothing}</p>`
    : ''
}`;
  sendView(
    res,
    view,
    title,
    html`${body}
<ul class="downloads">${upload.check?.report == null ? '' : downloads('check')}${upload.apply?.report == null ? '' : downloads('apply')}</ul>
<p><a href="${CONSOLE_BASE}/import">${t.importAnother}</a></p>`,
    { current: 'import' },
  );
}

export const applyUpload: SignedPageHandler<[id: string]> = async (context, view, req, res, id) => {
  const upload = await context.imports.get(id);
  if (upload === null) {
    missing(view, res);
    return;
  }
  const started = await context.imports.apply(upload.id);
  await context.audit({
    address: req.ip ?? null,
    account: accountOf(view),
    operation: 'import-apply',
    subject: `${upload.fileName} (${upload.id})`,
    outcome: started === 'started' ? 'allowed' : 'refused',
    reason: started === 'started' ? 'started' : started === 'applied' ? 'applied' : 'busy',
  });
  // Applied already (a second click): the page of that apply; anything else that did not start: 409.
  if (started !== 'started' && started !== 'applied') {
    sendView(res, view, view.t.importTitle, html`${errorSummary(view, [{ text: view.t.importBusy }])}`, {
      status: 409,
      current: 'import',
    });
    return;
  }
  redirect(res, `${CONSOLE_BASE}/import/${encodeURIComponent(upload.id)}`);
};

export const downloadReport: SignedPageHandler<[id: string, kind: 'check' | 'apply', format: 'txt' | 'json']> = async (
  context,
  view,
  req,
  res,
  id,
  kind,
  format,
) => {
  const upload = await context.imports.get(id);
  const report = upload?.[kind]?.report ?? null;
  if (upload === null || report === null) {
    missing(view, res);
    return;
  }
  // A report names rows and keys of a roster: reading it is recorded as the student pages are.
  await context.audit({
    address: req.ip ?? null,
    account: accountOf(view),
    operation: 'import-report',
    subject: `${upload.fileName} (${upload.id})`,
    outcome: 'allowed',
    reason: `${kind}.${format}`,
  });
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
};
