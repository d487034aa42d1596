// A node's background slot for the roster import's jobs
// (docs/console.md#importing-a-roster): it claims the queued job from the
// store with a lease (src/store/import-jobs.ts), copies the kept file out of
// the store chunk by chunk (upload-chunks.ts) into a private temporary folder,
// runs the importer on it, writes the progress as it goes (renewing the lease) and
// the report at the end, and records the end in the audit trail. It runs
// where the delivery worker runs (src/service.ts with WORKER=true, and
// `npm run worker`), so that the nodes that answer SOAP calls behind a load
// balancer (WORKER=false) never hold their event loop for an apply. A job
// whose node died is claimed again once its lease runs out, at most
// MAX_ATTEMPTS times.
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { importFiles, type ImportReport, type Progress, type ReadLimits } from '../import';
import type { Logger } from '../log';
import type {
  AccessStore,
  ClaimedImportJob,
  ConsoleStore,
  DataSetCollection,
  ImportProgress,
  ImportStore,
  OpenedStore,
} from '../store';
import { consoleAudit } from './audit';
import { IMPORT_KEEP_MS, IMPORT_MAX_UPLOADS, jobSummary } from './import-jobs';
import { copyUploadTo } from './upload-chunks';

/** How long a claim holds without news from its node; the progress and a timer renew it. */
export const IMPORT_LEASE_MS = 60_000;
/** Claims of one job before it is failed: a file that kills every node reading it is not read again. */
export const IMPORT_MAX_ATTEMPTS = 3;
/** The slot looks for a job this often when nothing wakes it. */
const POLL_MS = 1_000;
/** The slot prunes the expired uploads this often, when it has no job. */
const PRUNE_EVERY_MS = 10 * 60_000;
/** Progress is written at most this often (the page reloads every 2 s). */
const PROGRESS_EVERY_MS = 500;

export interface ImportRunnerOptions {
  readonly stores: {
    readonly console: ConsoleStore;
    readonly import: ImportStore;
    readonly access: Pick<AccessStore, 'insertAuditEntries'>;
  };
  /** What an uploaded file may hold (docs/console.md#import-limits). */
  readonly limits: ReadLimits;
  /** A school's eventsUrl may be http:// (EVENTS_ALLOW_HTTP). */
  readonly eventsAllowHttp?: boolean;
  readonly logger: Logger;
  readonly now?: () => Date;
  readonly pollMs?: number;
}

export interface ImportSlot {
  /** Claims and runs one job; false when there was none to claim. */
  runOnce(): Promise<boolean>;
  /**
   * Deletes the uploads kept past their hour (or past the 20 kept), with
   * their reports and chunks, and the chunks of forms never finished;
   * answers how many uploads went. An upload prunes too, but a node where
   * nobody uploads would otherwise keep the last ones for good.
   */
  prune(): Promise<number>;
}

export interface ImportRunner extends ImportSlot {
  /** A job was queued in this process: look now. */
  notify(): void;
  /** Stops looking; a job under way is waited for up to `budgetMs`, after which its lease lets another node take it. */
  stop(budgetMs: number): Promise<void>;
}

/** Runs a job when asked (runOnce), without looking on its own: the tests drive it, startImportRunner loops it. */
export function createImportSlot(options: ImportRunnerOptions): ImportSlot {
  const now = options.now ?? (() => new Date());
  const { logger } = options;
  const audit = consoleAudit(options.stores.access, now);

  const run = async (claim: ClaimedImportJob): Promise<void> => {
    const store = options.stores.console;
    const { upload, kind } = claim;
    let progress: ImportProgress = { stage: 'checking', done: 0, total: 0 };
    let writtenAt = 0;
    // The write under way, if any: one at a time, and the end waits for it.
    const pending: { writing: Promise<void> | null } = { writing: null };
    const write = () => {
      if (pending.writing !== null) return;
      writtenAt = performance.now();
      pending.writing = store
        .writeImportProgress(claim.jobId, claim.claimToken, progress, IMPORT_LEASE_MS)
        .then((held) => {
          if (!held) logger.warn({ upload: upload.id, kind }, 'console: an import job lost its claim');
        })
        .catch((err: unknown) => logger.warn({ err, upload: upload.id, kind }, 'console: import progress not written'))
        .finally(() => {
          pending.writing = null;
        });
    };
    const reporter: Progress = {
      stage(label, total) {
        progress = { stage: label.startsWith('writing') ? 'writing' : 'checking', done: 0, total };
        write();
      },
      update(done) {
        progress = { ...progress, done };
        if (performance.now() - writtenAt >= PROGRESS_EVERY_MS) write();
      },
      done() {},
    };
    // The lease is renewed while the importer is busy without reporting (a long write on PostgreSQL).
    const renew = setInterval(write, IMPORT_LEASE_MS / 4);
    renew.unref();
    const dir = await mkdtemp(path.join(tmpdir(), 'sns-console-import-'));
    const file = path.join(dir, upload.fileName);
    let report: ImportReport | null = null;
    try {
      const handle = await open(file, 'wx', 0o600);
      try {
        await copyUploadTo(store, upload, handle);
      } finally {
        await handle.close();
      }
      report = withName(
        await importFiles(
          options.stores.import,
          [{ file, collection: (upload.collection ?? undefined) as DataSetCollection | undefined }],
          {
            dryRun: kind === 'check',
            foresee: kind === 'check',
            progress: reporter,
            now,
            limits: options.limits,
            eventsAllowHttp: options.eventsAllowHttp,
          },
        ),
        file,
        upload.fileName,
      );
    } catch (err) {
      logger.error({ err, upload: upload.id, kind }, 'console: import job failed');
    } finally {
      clearInterval(renew);
      await rm(dir, { recursive: true, force: true });
    }
    await pending.writing;
    const ended = await store.finishImportJob(
      claim.jobId,
      claim.claimToken,
      report === null ? 'failed' : 'done',
      report === null ? null : JSON.stringify(report),
    );
    if (!ended) {
      logger.warn({ upload: upload.id, kind }, 'console: an import job ended after its claim was lost');
      return;
    }
    try {
      await audit({
        address: null,
        account: upload.account,
        operation: kind === 'check' ? 'import-check' : 'import-apply',
        subject: `${upload.fileName} (${upload.id})`,
        outcome: 'allowed',
        reason: jobSummary(upload.fileName, kind, report),
      });
    } catch (err) {
      logger.error({ err, upload: upload.id, kind }, 'console: the audit entry of an import job failed');
    }
  };

  return {
    async runOnce() {
      const claim = await options.stores.console.claimImportJob(IMPORT_LEASE_MS, IMPORT_MAX_ATTEMPTS);
      if (claim === null) return false;
      await run(claim);
      return true;
    },
    prune: () =>
      options.stores.console.pruneUploads(new Date(now().getTime() - IMPORT_KEEP_MS).toISOString(), IMPORT_MAX_UPLOADS),
  };
}

/** A slot that looks for a job every second (or when notified) until it is stopped. */
export function startImportRunner(options: ImportRunnerOptions): ImportRunner {
  const slot = createImportSlot(options);
  let stopped = false;
  let current: Promise<boolean> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let prunedAt = -PRUNE_EVERY_MS;

  const schedule = (ms: number) => {
    if (stopped) return;
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(tick, ms);
    timer.unref();
  };
  const tick = () => {
    timer = null;
    if (current !== null || stopped) return;
    current = slot
      .runOnce()
      .then(async (ran) => {
        if (!ran && performance.now() - prunedAt >= PRUNE_EVERY_MS) {
          prunedAt = performance.now();
          await slot.prune();
        }
        return ran;
      })
      .catch((err: unknown) => {
        options.logger.warn({ err }, 'console: looking for an import job failed');
        return false;
      });
    void current.then((ran) => {
      current = null;
      schedule(ran ? 0 : (options.pollMs ?? POLL_MS));
    });
  };
  schedule(0);

  return {
    runOnce: () => slot.runOnce(),
    prune: () => slot.prune(),
    notify() {
      if (current === null) schedule(0);
    },
    async stop(budgetMs) {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      if (current === null) return;
      let wait: NodeJS.Timeout | undefined;
      await Promise.race([current, new Promise((resolve) => (wait = setTimeout(resolve, budgetMs)))]);
      clearTimeout(wait);
    },
  };
}

/** The slot of a service with its delivery worker, and of `npm run worker`, on the whole store. */
export function startConsoleImports(
  settings: {
    /** CONSOLE_IMPORT_MAX_ROWS. */
    readonly importMaxRows: number;
    /** EVENTS_ALLOW_HTTP. */
    readonly eventsAllowHttp: boolean;
  },
  logger: Logger,
  store: OpenedStore,
): ImportRunner {
  return startImportRunner({
    stores: { console: store.console, import: store.dataSet, access: store.access },
    limits: { maxRows: settings.importMaxRows },
    eventsAllowHttp: settings.eventsAllowHttp,
    logger,
  });
}

/** The report with the temporary path replaced by the file's own name, in its texts too. */
function withName(report: ImportReport, file: string, name: string): ImportReport {
  const quoted = JSON.stringify(file).slice(1, -1);
  return JSON.parse(JSON.stringify(report).split(quoted).join(name)) as ImportReport;
}
