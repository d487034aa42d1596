// The console's roster uploads and their import jobs (migration 0017,
// docs/console.md#importing-a-roster), in the store so that any node shows
// any job. A job is claimed by one node's background slot with a lease and a
// claim token, as the outbox's messages are (src/store/outbox/outbox-claims.ts):
// progress and the end are written only while the claim is current, and a job
// whose node died is claimed again once its lease has run out. The file is
// kept in chunks of about 1 MiB (console_upload_chunks), written one at a time
// as the form arrives and read back one at a time (docs/design.md).
import { randomBytes } from 'node:crypto';
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { ConsoleImportJobsTable, StoreDatabase } from './database';
import { deleteInBatches } from './delete-in-batches';

export type ImportJobKind = 'check' | 'apply';
export type ImportJobState = 'queued' | 'running' | 'done' | 'failed';

export interface ConsoleUpload {
  readonly id: string;
  readonly account: string;
  readonly fileName: string;
  readonly collection: string | null;
  readonly size: number;
  /** How many chunks hold the file (readUploadChunk's `seq` runs from 0 to chunks - 1). */
  readonly chunks: number;
  readonly uploadedAt: string;
}

export interface ConsoleImportJob {
  readonly kind: ImportJobKind;
  readonly state: ImportJobState;
  readonly stage: 'checking' | 'writing';
  readonly done: number;
  readonly total: number;
  /** The importer's report as JSON, once the job is done. */
  readonly report: string | null;
  readonly attempts: number;
  readonly updatedAt: string;
}

export interface ConsoleUploadWithJobs extends ConsoleUpload {
  readonly check: ConsoleImportJob | null;
  readonly apply: ConsoleImportJob | null;
}

export interface ClaimedImportJob {
  readonly jobId: string;
  readonly kind: ImportJobKind;
  readonly claimToken: string;
  readonly attempt: number;
  readonly upload: ConsoleUpload;
}

/** An upload whose chunks are written: its size and number of chunks as written. */
export type NewConsoleUpload = Omit<ConsoleUpload, 'uploadedAt'>;

export type ApplyStart = 'started' | 'busy' | 'not-checked' | 'applied' | 'missing';

export interface ImportProgress {
  readonly stage: 'checking' | 'writing';
  readonly done: number;
  readonly total: number;
}

const jobId = (uploadId: string, kind: ImportJobKind): string => `${uploadId}:${kind}`;

const toUpload = (row: StoreDatabase['console_uploads']): ConsoleUpload => ({
  id: row.id,
  account: row.account,
  fileName: row.file_name,
  collection: row.collection,
  size: Number(row.size),
  chunks: Number(row.chunks),
  uploadedAt: row.uploaded_at,
});

const toJob = (row: Selectable<ConsoleImportJobsTable>): ConsoleImportJob => ({
  kind: row.kind === 'apply' ? 'apply' : 'check',
  state: row.state as ImportJobState,
  stage: row.stage === 'writing' ? 'writing' : 'checking',
  done: Number(row.done),
  total: Number(row.total),
  report: row.report,
  attempts: Number(row.attempts),
  updatedAt: row.updated_at,
});

async function activeJob(trx: Kysely<StoreDatabase>): Promise<boolean> {
  const row = await trx.selectFrom('console_import_jobs').select('id').where('active', '=', 1).executeTakeFirst();
  return row !== undefined;
}

function newJob(uploadId: string, kind: ImportJobKind, now: string): Insertable<ConsoleImportJobsTable> {
  return {
    id: jobId(uploadId, kind),
    upload_id: uploadId,
    kind,
    state: 'queued',
    active: 1,
    stage: 'checking',
    done: 0,
    total: 0,
    report: null,
    attempts: 0,
    locked_until: null,
    claim_token: null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * Stores one chunk of an upload being received. The upload's own row comes
 * after its last chunk (insertUpload); chunks left without one (the form was
 * refused, or its node stopped) go by their age (pruneUploads).
 */
export async function writeUploadChunk(
  db: Kysely<StoreDatabase>,
  uploadId: string,
  seq: number,
  data: Buffer,
  now: string,
): Promise<void> {
  await db.insertInto('console_upload_chunks').values({ upload_id: uploadId, seq, data, stored_at: now }).execute();
}

/** Chunk `seq` of an upload's file; null when there is none. */
export async function readUploadChunk(
  db: Kysely<StoreDatabase>,
  uploadId: string,
  seq: number,
): Promise<Buffer | null> {
  const row = await db
    .selectFrom('console_upload_chunks')
    .select('data')
    .where('upload_id', '=', uploadId)
    .where('seq', '=', seq)
    .executeTakeFirst();
  // Both drivers hand a blob over as a Buffer of its own: no second copy of the megabyte.
  return row?.data ?? null;
}

/** Chunks deleted per statement: a few MiB, so that SQLite's synchronous delete is brief. */
const CHUNKS_PER_DELETE = 4;

/** Deletes an upload's chunks, a few per statement with a yield between (deleteInBatches). */
export async function deleteUploadChunks(db: Kysely<StoreDatabase>, uploadId: string): Promise<void> {
  await deleteInBatches(
    () =>
      db
        .deleteFrom('console_upload_chunks')
        .where('upload_id', '=', uploadId)
        .where('seq', 'in', (eb) =>
          eb
            .selectFrom('console_upload_chunks')
            .select('seq')
            .where('upload_id', '=', uploadId)
            .orderBy('seq')
            .limit(CHUNKS_PER_DELETE),
        )
        .executeTakeFirst(),
    CHUNKS_PER_DELETE,
  );
}

/** Keeps the upload (its chunks written already) and queues its dry run; false when a job is queued or running (one at a time, every node). */
export async function insertUpload(
  trx: Kysely<StoreDatabase>,
  upload: NewConsoleUpload,
  now: string,
): Promise<boolean> {
  if (await activeJob(trx)) return false;
  await trx
    .insertInto('console_uploads')
    .values({
      id: upload.id,
      account: upload.account,
      file_name: upload.fileName,
      collection: upload.collection,
      size: upload.size,
      chunks: upload.chunks,
      uploaded_at: now,
    })
    .execute();
  await trx
    .insertInto('console_import_jobs')
    .values(newJob(upload.id, 'check', now))
    .execute();
  return true;
}

/** Queues the apply of a checked upload, once. */
export async function queueApply(trx: Kysely<StoreDatabase>, uploadId: string, now: string): Promise<ApplyStart> {
  const jobs = await trx.selectFrom('console_import_jobs').selectAll().where('upload_id', '=', uploadId).execute();
  if (jobs.length === 0) return 'missing';
  if (jobs.some((job) => job.kind === 'apply')) return 'applied';
  if (!jobs.some((job) => job.kind === 'check' && job.state === 'done')) return 'not-checked';
  if (await activeJob(trx)) return 'busy';
  await trx
    .insertInto('console_import_jobs')
    .values(newJob(uploadId, 'apply', now))
    .execute();
  return 'started';
}

export async function findUpload(db: Kysely<StoreDatabase>, id: string): Promise<ConsoleUploadWithJobs | null> {
  const row = await db.selectFrom('console_uploads').selectAll().where('id', '=', id).executeTakeFirst();
  if (row === undefined) return null;
  const jobs = await db.selectFrom('console_import_jobs').selectAll().where('upload_id', '=', id).execute();
  const of = (kind: ImportJobKind) => {
    const job = jobs.find((j) => j.kind === kind);
    return job === undefined ? null : toJob(job);
  };
  return { ...toUpload(row), check: of('check'), apply: of('apply') };
}

/**
 * Claims the queued job, or a running one whose lease ran out (its node
 * stopped or died). A job claimed `maxAttempts` times already is failed
 * instead, its upload kept: a file that kills every node that reads it is
 * not read again. Two nodes claiming at once: the update's condition lets one
 * of them have it.
 */
export async function claimImportJob(
  db: Kysely<StoreDatabase>,
  now: string,
  leaseUntil: string,
  maxAttempts: number,
): Promise<ClaimedImportJob | null> {
  const row = await db
    .selectFrom('console_import_jobs')
    .selectAll()
    .where('active', '=', 1)
    .where((eb) =>
      eb.or([eb('state', '=', 'queued'), eb.and([eb('state', '=', 'running'), eb('locked_until', '<', now)])]),
    )
    .executeTakeFirst();
  if (row === undefined) return null;
  const update = () => db.updateTable('console_import_jobs');
  const claimable = (qb: ReturnType<typeof update>) =>
    qb
      .where('id', '=', row.id)
      .where('active', '=', 1)
      .where('updated_at', '=', row.updated_at)
      .where('state', '=', row.state);
  if (Number(row.attempts) >= maxAttempts) {
    await claimable(update())
      .set({ state: 'failed', active: null, locked_until: null, claim_token: null, updated_at: now })
      .execute();
    return null;
  }
  const claimToken = randomBytes(12).toString('base64url');
  const claimed = await claimable(update())
    .set({
      state: 'running',
      claim_token: claimToken,
      locked_until: leaseUntil,
      attempts: sql`attempts + 1`,
      updated_at: now,
    })
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) return null;
  const upload = await db.selectFrom('console_uploads').selectAll().where('id', '=', row.upload_id).executeTakeFirst();
  if (upload === undefined) {
    await finishImportJob(db, row.id, claimToken, 'failed', null, now);
    return null;
  }
  return {
    jobId: row.id,
    kind: row.kind === 'apply' ? 'apply' : 'check',
    claimToken,
    attempt: Number(row.attempts) + 1,
    upload: toUpload(upload),
  };
}

/** Writes a running job's progress and renews its lease; false when the claim is no longer this one's. */
export async function writeImportProgress(
  db: Kysely<StoreDatabase>,
  id: string,
  claimToken: string,
  progress: ImportProgress,
  leaseUntil: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('console_import_jobs')
    .set({ ...progress, locked_until: leaseUntil, updated_at: now })
    .where('id', '=', id)
    .where('claim_token', '=', claimToken)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Ends a job with its report; false when the claim is no longer this one's.
 * An applied upload's chunks are deleted: the file is never read again (an
 * upload is applied once), and the store need not hold 32 MiB for its reports.
 */
export async function finishImportJob(
  db: Kysely<StoreDatabase>,
  id: string,
  claimToken: string,
  state: 'done' | 'failed',
  report: string | null,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('console_import_jobs')
    .set({ state, report, active: null, locked_until: null, claim_token: null, updated_at: now })
    .where('id', '=', id)
    .where('claim_token', '=', claimToken)
    .where('state', '=', 'running')
    .executeTakeFirst();
  const ended = Number(result.numUpdatedRows) === 1;
  if (ended && id.endsWith(':apply')) await deleteUploadChunks(db, id.slice(0, -':apply'.length));
  return ended;
}

/**
 * Deletes uploads older than `before`, then the oldest past `keep`, with
 * their jobs; an upload whose job is queued or running is kept. Answers the
 * ids of the uploads deleted, whose chunks the caller deletes next, after the
 * transaction (deleteUploadChunks).
 */
export async function pruneUploads(trx: Kysely<StoreDatabase>, before: string, keep: number): Promise<string[]> {
  const busy = trx.selectFrom('console_import_jobs').select('upload_id').where('active', '=', 1);
  const idle = await trx
    .selectFrom('console_uploads')
    .select(['id', 'uploaded_at'])
    .where('id', 'not in', busy)
    .orderBy('uploaded_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  const total = (
    await trx
      .selectFrom('console_uploads')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst()
  )?.n;
  let over = Number(total ?? 0) - keep;
  const gone: string[] = [];
  for (const row of [...idle].reverse()) {
    if (row.uploaded_at < before || over > 0) {
      gone.push(row.id);
      over--;
    }
  }
  for (let at = 0; at < gone.length; at += 100) {
    const ids = gone.slice(at, at + 100);
    await trx.deleteFrom('console_import_jobs').where('upload_id', 'in', ids).execute();
    await trx.deleteFrom('console_uploads').where('id', 'in', ids).execute();
  }
  return gone;
}

/**
 * The uploads (at most 100) with chunks older than `before` and no row of
 * their own: a form refused, or a node that stopped while receiving one.
 */
export async function abandonedUploads(db: Kysely<StoreDatabase>, before: string): Promise<string[]> {
  // By the index on stored_at (no DISTINCT, which would have the planner walk every chunk instead).
  const rows = await db
    .selectFrom('console_upload_chunks')
    .select('upload_id')
    .where('stored_at', '<', before)
    .where('upload_id', 'not in', (eb) => eb.selectFrom('console_uploads').select('id'))
    .orderBy('stored_at')
    .limit(1000)
    .execute();
  return [...new Set(rows.map((row) => row.upload_id))].slice(0, 100);
}
