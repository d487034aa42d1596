// The roster import's uploads and jobs (docs/console.md#import): an uploaded
// file is kept in a private temporary folder under an unguessable id, checked
// by the importer in a dry run, then written by the same importer when an
// operator applies it, never from a second upload. Both run as jobs: the
// request returns at once and the page shows the rows done. Uploads expire,
// and only a few are kept; one job runs at a time on a node.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { importFiles, type ImportReport, type Progress, type ReadLimits } from '../import';
import type { DataSetCollection, ImportStore } from '../store';
import type { Logger } from '../log';

/** The largest file the console imports: 100,000 students with their fields are about 8 MiB. */
export const IMPORT_MAX_BYTES = 32 * 1024 * 1024;
/** How long an upload and its reports are kept after it was uploaded. */
export const IMPORT_KEEP_MS = 60 * 60_000;
/** Uploads kept at once on a node; past it the oldest finished one goes. */
export const IMPORT_MAX_UPLOADS = 20;

export type JobKind = 'check' | 'apply';

export interface Job {
  readonly kind: JobKind;
  state: 'running' | 'done' | 'failed';
  stage: 'checking' | 'writing';
  done: number;
  total: number;
  report: ImportReport | null;
}

export interface Upload {
  readonly id: string;
  readonly account: string;
  /** The file's own name, checked: letters, digits, `.`, `_`, `-`, ending .csv or .json. */
  readonly fileName: string;
  readonly collection: DataSetCollection | undefined;
  readonly uploadedAt: number;
  readonly dir: string;
  check: Job | null;
  apply: Job | null;
}

export interface ImportJobs {
  /** Null when a job is running already (one at a time). */
  upload(account: string, fileName: string, data: Buffer, collection?: DataSetCollection): Promise<Upload | null>;
  get(id: string): Upload | null;
  /** Starts writing a checked upload; false when it cannot be (not checked, applied already, or a job is running). */
  apply(upload: Upload): boolean;
  /** Settles when the upload's running job has ended (the tests wait on it). */
  settled(id: string): Promise<void>;
}

export interface ImportJobsOptions {
  readonly store: ImportStore;
  /** What an uploaded file may hold (docs/console.md#import-limits). */
  readonly limits: ReadLimits;
  /** A school's eventsUrl may be http:// (EVENTS_ALLOW_HTTP). */
  readonly eventsAllowHttp?: boolean;
  readonly logger: Logger;
  readonly now: () => Date;
  /** Told when a job ends, with the report (the audit trail's second entry). */
  readonly onEnded: (upload: Upload, job: Job) => Promise<void>;
}

/** `students-2026.csv`; null for a name the console does not take. */
export function safeFileName(given: string): string | null {
  const base = given.split(/[\\/]/).pop() ?? '';
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.(csv|json)$/i.test(base) ? base : null;
}

export function createImportJobs(options: ImportJobsOptions): ImportJobs {
  const uploads = new Map<string, Upload>();
  const running = new Map<string, Promise<void>>();
  // An upload being stored counts as running: two uploads at once must not both start a job.
  let storing = false;
  let root: Promise<string> | null = null;
  const folder = () => (root ??= mkdtemp(path.join(tmpdir(), 'sns-console-import-')));

  const remove = async (upload: Upload) => {
    uploads.delete(upload.id);
    await rm(upload.dir, { recursive: true, force: true });
  };
  const prune = async () => {
    const now = options.now().getTime();
    const idle = [...uploads.values()].filter((u) => !running.has(u.id));
    for (const upload of idle) if (now - upload.uploadedAt > IMPORT_KEEP_MS) await remove(upload);
    const left = [...uploads.values()].filter((u) => !running.has(u.id)).sort((a, b) => a.uploadedAt - b.uploadedAt);
    while (uploads.size >= IMPORT_MAX_UPLOADS && left.length > 0) await remove(left.shift() as Upload);
  };

  const start = (upload: Upload, kind: JobKind): void => {
    const job: Job = { kind, state: 'running', stage: 'checking', done: 0, total: 0, report: null };
    if (kind === 'check') upload.check = job;
    else upload.apply = job;
    const progress: Progress = {
      stage(label, total) {
        job.stage = label.startsWith('writing') ? 'writing' : 'checking';
        job.total = total;
        job.done = 0;
      },
      update(done) {
        job.done = done;
      },
      done() {},
    };
    const file = path.join(upload.dir, upload.fileName);
    const run = (async () => {
      try {
        const report = await importFiles(options.store, [{ file, collection: upload.collection }], {
          dryRun: kind === 'check',
          foresee: kind === 'check',
          progress,
          now: options.now,
          limits: options.limits,
          eventsAllowHttp: options.eventsAllowHttp,
        });
        job.report = withName(report, file, upload.fileName);
        await writeFile(path.join(upload.dir, `${kind}.json`), JSON.stringify(job.report));
        job.state = 'done';
      } catch (err) {
        job.state = 'failed';
        options.logger.error({ err, upload: upload.id, kind }, 'console: import job failed');
      }
      try {
        await options.onEnded(upload, job);
      } catch (err) {
        options.logger.error({ err, upload: upload.id, kind }, 'console: the audit entry of an import job failed');
      }
    })();
    running.set(
      upload.id,
      run.finally(() => running.delete(upload.id)),
    );
  };

  return {
    async upload(account, fileName, data, collection) {
      if (running.size > 0 || storing) return null;
      storing = true;
      const id = randomBytes(18).toString('base64url');
      let dir: string;
      try {
        dir = path.join(await folder(), id);
        await prune();
        await mkdir(dir, { mode: 0o700 });
        await writeFile(path.join(dir, fileName), data, { mode: 0o600 });
      } finally {
        storing = false;
      }
      const upload: Upload = {
        id,
        account,
        fileName,
        collection,
        uploadedAt: options.now().getTime(),
        dir,
        check: null,
        apply: null,
      };
      uploads.set(id, upload);
      start(upload, 'check');
      return upload;
    },
    get(id) {
      const upload = uploads.get(id);
      if (upload === undefined) return null;
      if (!running.has(id) && options.now().getTime() - upload.uploadedAt > IMPORT_KEEP_MS) {
        void remove(upload);
        return null;
      }
      return upload;
    },
    apply(upload) {
      if (running.size > 0 || storing || upload.check?.state !== 'done' || upload.apply !== null) return false;
      start(upload, 'apply');
      return true;
    },
    async settled(id) {
      await running.get(id);
    },
  };
}

/** The report with the temporary path replaced by the file's own name, in its texts too. */
function withName(report: ImportReport, file: string, name: string): ImportReport {
  const quoted = JSON.stringify(file).slice(1, -1);
  return JSON.parse(JSON.stringify(report).split(quoted).join(name)) as ImportReport;
}
