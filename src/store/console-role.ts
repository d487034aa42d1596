// The console role (docs/console.md): the operators' accounts and sessions,
// and what the overview reads. Records, the outbox's messages and the audit
// trail come through the admin role, the same functions the admin API uses.
import type { OutboxChannel } from '../shared/outbox-channel';
import type { StoreCore } from './core';
import {
  changeAccount,
  deleteSession,
  findAccount,
  findSession,
  insertSession,
  listAccounts,
  pruneSessions,
  removeAccount,
  setAccountTimeZone,
  touchSession,
  writeAccount,
  type AccountWrite,
  type ConsoleAccount,
  type ConsoleAccountSecret,
  type ConsoleRole,
  type ConsoleSession,
  type NewConsoleSession,
} from './operator-accounts';
import {
  activity,
  frequentErrors,
  type ActivityBucket,
  type ActivityWidth,
  type ErrorCount,
} from './message-history/console-overview';
import { readFunnel, type FunnelRow } from './message-history/read-funnel';
import { oldestDueAt } from './outbox/outbox-claims';
import { listHeartbeats, type WorkerHeartbeat } from './outbox/worker-heartbeats';
import { searchStudents, type StudentHits } from './records/student-search';
import { listAttempts, type DeliveryAttemptRow } from './message-history/attempts';
import {
  deadErrors,
  dismissDead,
  listDead,
  requeueDead,
  type DeadFilter,
  type DeadPage,
  type DeadPageRequest,
} from './message-history/dead-letters';
import {
  listMessages,
  type MessageListFilter,
  type MessageListPage,
  type MessagePageRequest,
} from './message-history/message-list';
import { listRefusedCalls, type RefusedCall } from './message-history/refused-calls';
import {
  abandonedUploads,
  claimImportJob,
  deleteUploadChunks,
  findUpload,
  finishImportJob,
  insertUpload,
  pruneUploads,
  queueApply,
  readUploadChunk,
  writeImportProgress,
  writeUploadChunk,
  type ApplyStart,
  type ClaimedImportJob,
  type ConsoleUploadWithJobs,
  type ImportProgress,
  type NewConsoleUpload,
} from './import-jobs';
import {
  countSignInFailure,
  giveBackSignInFailure,
  pruneSignInThrottle,
  readSignInFailures,
  signInTrusted,
  trustSignIn,
} from './sign-in-throttle';

export interface ConsoleStore {
  getAccount(name: string): Promise<ConsoleAccountSecret | null>;
  listAccounts(): Promise<ConsoleAccount[]>;
  /** Adds an account, or replaces the password and role of one (ending its sessions). */
  writeAccount(account: { name: string; passwordHash: string; role: ConsoleRole }): Promise<AccountWrite>;
  /** A new role or the disabled flag; ends the account's sessions. False: no such account. */
  changeAccount(name: string, change: { role?: ConsoleRole; disabled?: boolean }): Promise<boolean>;
  /** Removes an account and its sessions. False: no such account. */
  removeAccount(name: string): Promise<boolean>;
  /** The zone an account's times are shown in, null for the default; its sessions go on. False: nothing written. */
  setAccountTimeZone(name: string, zone: string | null, options?: { onlyIfUnset?: boolean }): Promise<boolean>;
  createSession(session: NewConsoleSession): Promise<void>;
  findSession(id: string): Promise<ConsoleSession | null>;
  touchSession(id: string): Promise<void>;
  deleteSession(id: string): Promise<void>;
  pruneSessions(idleBefore: string, startedBefore: string): Promise<number>;
  /** Sent, retrying and given up per minute (`width` 16), hour (13) or day (10) since `since`. */
  activity(since: string, width: ActivityWidth): Promise<ActivityBucket[]>;
  /** Push notifications queued, accepted and read per day, school and type since `since` (read-funnel.ts). */
  readFunnel(since: string, limit: number): Promise<FunnelRow[]>;
  frequentErrors(since: string, limit: number): Promise<ErrorCount[]>;
  /** When the longest-waiting due message came due, or null (the readiness check's question). */
  oldestDueAt(): Promise<string | null>;
  /** The delivery workers' heartbeats, oldest start first. */
  listWorkers(): Promise<WorkerHeartbeat[]>;
  /** Students by id or any part of the name, across schools (student-search.ts). */
  searchStudents(text: string, page: { limit: number; offset: number }): Promise<StudentHits>;
  /** A message's attempts, oldest first (attempts.ts). */
  listAttempts(channel: OutboxChannel, messageId: string): Promise<DeliveryAttemptRow[]>;
  /** Dead messages of a channel, the latest given up first, a page at a time by their key (dead-letters.ts). */
  listDead(channel: OutboxChannel, filter: DeadFilter, page: DeadPageRequest): Promise<DeadPage>;
  /** The last errors of a channel's dead messages (the dismissed ones, or the others), most frequent first. */
  deadErrors(channel: OutboxChannel, limit: number, dismissed?: boolean): Promise<{ error: string; count: number }[]>;
  /** Dismisses a dead message (kept, out of the list). False: no dead message with that id. */
  dismissDead(channel: OutboxChannel, id: string): Promise<boolean>;
  /** Re-queues the dead messages with one of these last errors (all for null), the dismissed ones and erased codes left out. */
  requeueDead(channel: OutboxChannel, errors: readonly string[] | null): Promise<number>;
  /** Messages of both channels, newest first, a page at a time by their key (message-list.ts). */
  listMessages(filter: MessageListFilter, page: MessagePageRequest): Promise<MessageListPage>;
  /** A student's refused calls, newest first (refused-calls.ts). */
  listRefusedCalls(studentId: string, limit: number): Promise<RefusedCall[]>;

  /** Stores chunk `seq` of an upload being received (import-jobs.ts). */
  writeUploadChunk(uploadId: string, seq: number, data: Buffer): Promise<void>;
  /** Chunk `seq` of an upload's file; null when there is none. */
  readUploadChunk(uploadId: string, seq: number): Promise<Buffer | null>;
  /** Deletes the chunks of an upload refused after some were written. */
  deleteUploadChunks(uploadId: string): Promise<void>;
  /** Keeps an upload whose chunks are written and queues its dry run; false when a job is queued or running on any node. */
  insertUpload(upload: NewConsoleUpload): Promise<boolean>;
  /** Queues the apply of a checked upload, once. */
  queueApply(uploadId: string): Promise<ApplyStart>;
  /** An upload with its jobs, without its file. */
  findUpload(id: string): Promise<ConsoleUploadWithJobs | null>;
  /** The job waiting for a node, or one whose node's lease ran out; null when there is none. */
  claimImportJob(leaseMs: number, maxAttempts: number): Promise<ClaimedImportJob | null>;
  /** A claimed job's progress, renewing its lease; false when the claim was lost. */
  writeImportProgress(id: string, claimToken: string, progress: ImportProgress, leaseMs: number): Promise<boolean>;
  finishImportJob(id: string, claimToken: string, state: 'done' | 'failed', report: string | null): Promise<boolean>;
  /**
   * Deletes uploads older than `before` and the oldest past `keep`, but for one whose job is not over,
   * with their chunks, and the chunks older than `before` of uploads never finished.
   */
  pruneUploads(before: string, keep: number): Promise<number>;

  /** Counts a failed sign-in of `key` in its window and answers the window's count (sign-in-throttle.ts). */
  countSignInFailure(key: string, windowStart: string): Promise<number>;
  readSignInFailures(keys: readonly string[], windowStart: string): Promise<Map<string, number>>;
  giveBackSignInFailure(key: string, windowStart: string): Promise<void>;
  trustSignIn(key: string, until: string): Promise<void>;
  signInTrusted(key: string): Promise<boolean>;
  pruneSignInThrottle(windowBefore: string): Promise<void>;
}

/** A unique index refused the row: another node queued a job at the same moment. */
const isUniqueViolation = (error: unknown): boolean => {
  const code = (error as { code?: unknown; cause?: { code?: unknown } }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
};

export function createConsoleStore(core: StoreCore): ConsoleStore {
  const { db, run } = core;
  const later = (ms: number) => new Date(core.now().getTime() + ms).toISOString();
  return {
    getAccount: (name) => run(() => findAccount(db, name)),
    listAccounts: () => run(() => listAccounts(db)),
    writeAccount: (account) => run(() => core.writeTransaction((trx) => writeAccount(trx, account, core.timestamp()))),
    changeAccount: (name, change) =>
      run(() => core.writeTransaction((trx) => changeAccount(trx, name, change, core.timestamp()))),
    removeAccount: (name) => run(() => core.writeTransaction((trx) => removeAccount(trx, name))),
    setAccountTimeZone: (name, zone, options) =>
      run(() => setAccountTimeZone(db, name, zone, options?.onlyIfUnset ?? false)),
    createSession: (session) => run(() => insertSession(db, session, core.timestamp())),
    findSession: (id) => run(() => findSession(db, id)),
    touchSession: (id) => run(() => touchSession(db, id, core.timestamp())),
    deleteSession: (id) => run(() => deleteSession(db, id)),
    pruneSessions: (idleBefore, startedBefore) => run(() => pruneSessions(db, idleBefore, startedBefore)),
    activity: (since, width) => run(() => activity(db, since, width)),
    readFunnel: (since, limit) => run(() => readFunnel(db, since, limit)),
    frequentErrors: (since, limit) => run(() => frequentErrors(db, since, limit)),
    oldestDueAt: () => run(() => oldestDueAt(db, core.dialect, core.timestamp())),
    listWorkers: () => run(() => listHeartbeats(db)),
    searchStudents: (text, page) => run(() => searchStudents(core, text, page)),
    listAttempts: (channel, messageId) => run(() => listAttempts(db, channel, messageId)),
    listDead: (channel, filter, page) => run(() => listDead(db, channel, filter, page)),
    deadErrors: (channel, limit, dismissed) => run(() => deadErrors(db, channel, limit, dismissed)),
    dismissDead: (channel, id) => run(() => dismissDead(db, channel, id, core.timestamp())),
    requeueDead: (channel, errors) => run(() => requeueDead(db, channel, errors, core.timestamp())),
    listMessages: (filter, page) => run(() => listMessages(core, filter, page)),
    listRefusedCalls: (studentId, limit) => run(() => listRefusedCalls(db, studentId, limit)),

    insertUpload: (upload) =>
      run(async () => {
        try {
          return await core.writeTransaction((trx) => insertUpload(trx, upload, core.timestamp()));
        } catch (error) {
          if (isUniqueViolation(error)) return false;
          throw error;
        }
      }),
    queueApply: (uploadId) =>
      run(async () => {
        try {
          return await core.writeTransaction((trx) => queueApply(trx, uploadId, core.timestamp()));
        } catch (error) {
          if (isUniqueViolation(error)) return 'busy';
          throw error;
        }
      }),
    writeUploadChunk: (uploadId, seq, data) => run(() => writeUploadChunk(db, uploadId, seq, data, core.timestamp())),
    readUploadChunk: (uploadId, seq) => run(() => readUploadChunk(db, uploadId, seq)),
    deleteUploadChunks: (uploadId) => run(() => deleteUploadChunks(db, uploadId)),
    findUpload: (id) => run(() => findUpload(db, id)),
    claimImportJob: (leaseMs, maxAttempts) =>
      run(() => claimImportJob(db, core.timestamp(), later(leaseMs), maxAttempts)),
    writeImportProgress: (id, claimToken, progress, leaseMs) =>
      run(() => writeImportProgress(db, id, claimToken, progress, later(leaseMs), core.timestamp())),
    finishImportJob: (id, claimToken, state, report) =>
      run(() => finishImportJob(db, id, claimToken, state, report, core.timestamp())),
    pruneUploads: (before, keep) =>
      run(async () => {
        const gone = await core.writeTransaction((trx) => pruneUploads(trx, before, keep));
        for (const id of [...gone, ...(await abandonedUploads(db, before))]) await deleteUploadChunks(db, id);
        return gone.length;
      }),

    countSignInFailure: (key, windowStart) => run(() => countSignInFailure(db, key, windowStart)),
    readSignInFailures: (keys, windowStart) => run(() => readSignInFailures(db, keys, windowStart)),
    giveBackSignInFailure: (key, windowStart) => run(() => giveBackSignInFailure(db, key, windowStart)),
    trustSignIn: (key, until) => run(() => trustSignIn(db, key, until)),
    signInTrusted: (key) => run(() => signInTrusted(db, key, core.timestamp())),
    pruneSignInThrottle: (windowBefore) => run(() => pruneSignInThrottle(db, windowBefore, core.timestamp())),
  };
}

export type {
  AccountWrite,
  ConsoleAccount,
  ConsoleAccountSecret,
  ConsoleRole,
  ConsoleSession,
  NewConsoleSession,
} from './operator-accounts';
export type { ActivityBucket, ActivityWidth, ErrorCount } from './message-history/console-overview';
export type { FunnelRow } from './message-history/read-funnel';
export type { WorkerHeartbeat } from './outbox/worker-heartbeats';
export type { StudentHit, StudentHits } from './records/student-search';
export type { DeliveryAttemptRow } from './message-history/attempts';
export type { DeadCursor, DeadFilter, DeadMessage, DeadPage } from './message-history/dead-letters';
export type { RefusedCall } from './message-history/refused-calls';
export type {
  MessageChannel,
  MessageCursor,
  MessageListFilter,
  MessageListItem,
  MessageListPage,
  MessageListStatus,
  MessagePageRequest,
} from './message-history/message-list';
