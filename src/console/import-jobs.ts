// The roster import's uploads and jobs (docs/console.md#importing-a-roster),
// kept in the store so that any node shows any job: an uploaded file is kept
// under an unguessable id, checked by the importer in a dry run, then written
// by the same importer when an operator applies it, never from a second
// upload. Both run as jobs claimed by a node's background slot
// (import-runner.ts); the request returns at once and the page shows the rows
// done. Uploads expire, only a few are kept, and one job at a time exists on
// all nodes together.
import { randomBytes } from 'node:crypto';
import type { ImportReport } from '../import';
import type { ApplyStart, ConsoleImportJob, ConsoleStore, DataSetCollection } from '../store';
import { chunkWriter, type ChunkWriter } from './upload-chunks';

/** The largest file the console imports: 100,000 students with their fields are about 8 MiB. */
export const IMPORT_MAX_BYTES = 32 * 1024 * 1024;
/** How long an upload and its reports are kept after it was uploaded. */
export const IMPORT_KEEP_MS = 60 * 60_000;
/** Uploads kept at once, all nodes together; past it the oldest finished one goes. */
export const IMPORT_MAX_UPLOADS = 20;
/**
 * Uploads being received at once by one account, and by this process in all: each may write up to
 * IMPORT_MAX_BYTES to the store before it is refused or kept (docs/security.md#review-2026-11-28).
 */
export const IMPORT_RECEIVING_PER_ACCOUNT = 2;
export const IMPORT_RECEIVING_MAX = 4;
/** An upload's id: 144 random bits, base64url. */
export const UPLOAD_ID = /^[A-Za-z0-9_-]{24}$/;

export type JobKind = 'check' | 'apply';

export interface Job {
  readonly kind: JobKind;
  /** `queued`: waiting for a node's background slot to claim it. */
  readonly state: 'queued' | 'running' | 'done' | 'failed';
  readonly stage: 'checking' | 'writing';
  readonly done: number;
  readonly total: number;
  readonly report: ImportReport | null;
}

export interface Upload {
  readonly id: string;
  readonly account: string;
  /** The file's own name, checked: letters, digits, `.`, `_`, `-`, ending .csv or .json. */
  readonly fileName: string;
  readonly collection: DataSetCollection | undefined;
  readonly uploadedAt: number;
  readonly check: Job | null;
  readonly apply: Job | null;
}

/** A file being received: its upload id and the sink that stores it in chunks as it arrives. */
export interface Receiving {
  readonly id: string;
  readonly sink: ChunkWriter;
  /** The form was refused: the chunks written so far are deleted. */
  discard(): Promise<void>;
  /** Its request is over: its place among the uploads being received is free (once; again is nothing). */
  release(): void;
}

export interface ImportJobs {
  /** Starts receiving a file of `account` under a new upload id; null when it or this process receives too many already. */
  receive(account: string): Receiving | null;
  /**
   * Keeps a received file (its chunks all written) and queues its dry run;
   * null when a job is queued or running (one at a time), its chunks deleted.
   */
  upload(
    received: { readonly id: string; readonly size: number; readonly chunks: number },
    account: string,
    fileName: string,
    collection?: DataSetCollection,
  ): Promise<Upload | null>;
  /** Null for an id unknown, or expired. */
  get(id: string): Promise<Upload | null>;
  /** Queues the apply of a checked upload, once. */
  apply(id: string): Promise<ApplyStart>;
}

export interface ImportJobsOptions {
  readonly store: ConsoleStore;
  readonly now: () => Date;
  /** Told when a job is queued: a background slot in this process may claim it now rather than at its next look. */
  readonly onQueued?: () => void;
}

/** `students-2026.csv`; null for a name the console does not take. */
export function safeFileName(given: string): string | null {
  const base = given.split(/[\\/]/).pop() ?? '';
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.(csv|json)$/i.test(base) ? base : null;
}

const toJob = (job: ConsoleImportJob | null): Job | null =>
  job === null
    ? null
    : {
        kind: job.kind,
        state: job.state,
        stage: job.stage,
        done: job.done,
        total: job.total,
        report: job.report === null ? null : (JSON.parse(job.report) as ImportReport),
      };

export function createImportJobs(options: ImportJobsOptions): ImportJobs {
  const { store } = options;
  const expired = (uploadedAt: number) => options.now().getTime() - uploadedAt > IMPORT_KEEP_MS;
  // Uploads being received in this process, by account.
  const receiving = new Map<string, number>();
  let receivingAll = 0;
  return {
    receive(account) {
      const mine = receiving.get(account) ?? 0;
      if (mine >= IMPORT_RECEIVING_PER_ACCOUNT || receivingAll >= IMPORT_RECEIVING_MAX) return null;
      receiving.set(account, mine + 1);
      receivingAll++;
      let released = false;
      const id = randomBytes(18).toString('base64url');
      return {
        id,
        sink: chunkWriter(store, id, IMPORT_MAX_BYTES),
        discard: () => store.deleteUploadChunks(id),
        release() {
          if (released) return;
          released = true;
          receivingAll--;
          const left = (receiving.get(account) ?? 1) - 1;
          if (left > 0) receiving.set(account, left);
          else receiving.delete(account);
        },
      };
    },
    async upload({ id, size, chunks }, account, fileName, collection) {
      const now = options.now().getTime();
      // Room for this one: expired uploads go, then the oldest past the limit.
      await store.pruneUploads(new Date(now - IMPORT_KEEP_MS).toISOString(), IMPORT_MAX_UPLOADS - 1);
      const kept = await store.insertUpload({ id, account, fileName, collection: collection ?? null, size, chunks });
      if (!kept) {
        await store.deleteUploadChunks(id);
        return null;
      }
      options.onQueued?.();
      return {
        id,
        account,
        fileName,
        collection,
        uploadedAt: now,
        check: { kind: 'check', state: 'queued', stage: 'checking', done: 0, total: 0, report: null },
        apply: null,
      };
    },
    async get(id) {
      if (!UPLOAD_ID.test(id)) return null;
      const found = await store.findUpload(id);
      if (found === null) return null;
      const uploadedAt = Date.parse(found.uploadedAt);
      const running = [found.check, found.apply].some((job) => job?.state === 'queued' || job?.state === 'running');
      if (!running && expired(uploadedAt)) return null;
      return {
        id: found.id,
        account: found.account,
        fileName: found.fileName,
        collection: (found.collection ?? undefined) as DataSetCollection | undefined,
        uploadedAt,
        check: toJob(found.check),
        apply: toJob(found.apply),
      };
    },
    async apply(id) {
      if (!UPLOAD_ID.test(id)) return 'missing';
      const started = await store.queueApply(id);
      if (started === 'started') options.onQueued?.();
      return started;
    },
  };
}

/** The audit trail's entry when a job ends: what it did, in the report's counts. */
export function jobSummary(fileName: string, kind: JobKind, report: ImportReport | null): string {
  if (report === null) return 'failed';
  const all = report.files.flatMap((file) => file.collections);
  const sum = (pick: (c: (typeof all)[number]) => number | null | undefined) =>
    all.reduce((total, c) => total + (pick(c) ?? 0), 0);
  const failed = report.files.filter((file) => file.status === 'failed').length;
  const counts =
    kind === 'check'
      ? `would add ${sum((c) => c.wouldInsert)}, change ${sum((c) => c.wouldUpdate)}`
      : `added ${sum((c) => c.inserted)}, changed ${sum((c) => c.updated)}`;
  return `${fileName}: ${counts}, refused ${sum((c) => c.rejected)}${failed > 0 ? ', file not imported' : ''}`;
}
