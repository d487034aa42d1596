import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { schoolKey } from '../domain/school-key';
import type { StoreDatabase } from './database';
import type { DataSet, DataSetCollection, DataSetCounts, WriteDataSetOptions } from './data-set/data-set';
import { insertAuditRows, listAuditRows, pruneAuditRows, type AuditPage, type AuditQuery, type NewAuditRow } from './access/access-audit';
import { mergeCounters, pruneCounters, type CounterMerge } from './access/access-counters';
import { admitAuthCode, admitAuthCodes, type AuthCodeAdmission, type AuthCodeLimit } from './outbox/auth-code-admission';
import { InvalidDataSetError } from './data-set/data-set-values';
import { StoreError, toStoreError } from './errors';
import type { StoreDialect } from './migrations';
import { GroupCommit } from './outbox/group-commit';
import { normaliseDataSet } from './data-set/normalise-data-set';
import { notifyOutbox, OUTBOX_CHANNEL, type OutboxSubscription } from './outbox/outbox-notify';
import {
  queuedColumns,
  toAuthCodeMessageRow,
  toPushNotificationRow,
  type AuthCodeMessageRow,
  type OutboxFilter,
  type PushNotificationRow,
} from './outbox/outbox';
import {
  claimAuthCodeMessages,
  claimPushNotifications,
  completeDelivery,
  oldestDueAt,
  completeSent,
  removeDeviceToken,
  type ClaimedAuthCodeMessage,
  type ClaimedPushNotification,
  type ClaimRequest,
  type DeliveryCompletion,
  type DeliveryCompletionEntry,
} from './outbox/outbox-claims';
import {
  outboxStats,
  pruneFinishedMessages,
  requeueDeadMessages,
  requeueMessage,
  type OutboxChannel,
  type OutboxChannelStats,
  type RequeueResult,
} from './outbox/outbox-admin';
import { prepareQueries, type StoreQueries } from './records/queries';
import { importNormalisedDataSet, type ImportCounts } from './data-set/import-data-set';
import { readMigrationStatus, type MigrationStatus } from './migrations/migration-status';
import { findOutboxMessage, listOutbox, type OutboxMessage, type OutboxPage, type OutboxQuery } from './outbox/outbox-listing';
import { changeRecord, type RecordChangeResult, type RecordDecision } from './records/record-change';
import {
  COLLECTIONS,
  deleteRecord,
  existingKeys,
  findRecord,
  listRecords,
  readAllRecords,
  type DeleteResult,
  type RecordFilter,
  type RecordOf,
  type RecordPage,
} from './records/records';
import { toAbsenceRecord, toNoteRecord } from './records/rows';
import { inWriteTransaction } from './connection/transaction';
import type { AbsenceRecord, NewAuthCodeMessage, NewPushNotification, NoteRecord, Store, StudentPlacement, StudentSummary } from './types';
import { writeNormalisedDataSet } from './data-set/write-data-set';

function toStudentPlacement(row: { id: string; full_name: string; school_key: string; device_id: string | null; push_token: string | null }): StudentPlacement {
  return { studentId: row.id, fullName: row.full_name, schoolKey: row.school_key, deviceId: row.device_id, pushToken: row.push_token ?? null };
}

export interface SqlStoreOptions {
  /** Source of timestamps; tests pin it. */
  now?: () => Date;
  /** Gives the connection back (destroys it, or drops a share of it). */
  release: () => Promise<void>;
  /**
   * PostgreSQL: how long a queueing call waits for others to share its
   * commit (see group-commit.ts); null writes each call on its own.
   */
  groupCommitMs?: number | null;
  /** PostgreSQL: opens a LISTEN connection for the outbox channel (see outbox-notify.ts). */
  listen?: (onNotification: (channel: string) => void) => Promise<OutboxSubscription>;
}

// A bound on one group commit: bind parameters (13 per push row, PostgreSQL
// takes 65,535) and the time one transaction holds its locks.
const GROUP_COMMIT_MAX_BATCH = 500;
// Batches written at once; the pool (10 connections) also serves the reads.
const GROUP_COMMIT_IN_FLIGHT = 4;

interface AdmissionRequest {
  readonly message: NewAuthCodeMessage;
  readonly limits: readonly AuthCodeLimit[];
}

const OUTBOX_TABLE = { push: 'push_notifications', sms: 'auth_code_messages' } as const;

// How long close() lets calls already under way finish. Destroying a pg pool
// under them would leave queued requests waiting forever.
const CLOSE_GRACE_MS = 10_000;

/** The Store on SQLite or PostgreSQL; obtain one from openStore(). */
export class SqlStore implements Store {
  readonly dialect: StoreDialect;
  readonly #db: Kysely<StoreDatabase>;
  readonly #queries: StoreQueries;
  readonly #now: () => Date;
  readonly #release: () => Promise<void>;
  readonly #listen: SqlStoreOptions['listen'];
  readonly #pushBatches: GroupCommit<NewPushNotification, string> | null;
  readonly #admissionBatches: GroupCommit<AdmissionRequest, AuthCodeAdmission> | null;
  readonly #studentReads: GroupCommit<string, StudentPlacement | null> | null;
  #closing: Promise<void> | null = null;
  #active = 0;
  #onIdle: (() => void) | null = null;

  constructor(db: Kysely<StoreDatabase>, dialect: StoreDialect, options: SqlStoreOptions) {
    this.#db = db;
    this.dialect = dialect;
    this.#queries = prepareQueries(db, dialect);
    this.#now = options.now ?? (() => new Date());
    this.#release = options.release;
    this.#listen = options.listen;
    const waitMs = options.groupCommitMs ?? null;
    const grouped = dialect === 'postgres' && waitMs !== null;
    const batching = { waitMs: waitMs ?? 0, maxBatch: GROUP_COMMIT_MAX_BATCH, maxInFlight: GROUP_COMMIT_IN_FLIGHT };
    this.#pushBatches = grouped ? new GroupCommit({ ...batching, write: (items) => this.#insertPushNotifications(items) }) : null;
    this.#admissionBatches = grouped ? new GroupCommit({ ...batching, write: (items) => this.#admitAuthCodes(items) }) : null;
    this.#studentReads = grouped ? new GroupCommit({ ...batching, write: (ids) => this.#readStudents(ids) }) : null;
  }

  listStudentsOfSchool(key: string, active: string): Promise<StudentSummary[]> {
    return this.#run(async () => {
      // schoolKey is idempotent, so a caller passing a raw base URL still matches.
      const { rows } = await this.#db.executeQuery(this.#queries.studentsOfSchool({ schoolKey: schoolKey(key), active }));
      return rows;
    });
  }

  getDeviceToken(deviceId: string): Promise<string | null> {
    return this.#run(async () => {
      const { rows } = await this.#db.executeQuery(this.#queries.deviceToken({ deviceId }));
      return rows[0]?.push_token ?? null;
    });
  }

  listAuditNotes(subjectId: string, classId: string): Promise<NoteRecord[]> {
    return this.#run(async () => {
      const { rows } = await this.#db.executeQuery(this.#queries.auditNotes({ subjectId, classId }));
      return rows.map(toNoteRecord);
    });
  }

  markNotesRead(studentId: string, noteType: string): Promise<NoteRecord[]> {
    return this.#run(() =>
      this.#writeTransaction(async (trx) => {
        await trx.executeQuery(this.#queries.markNotesRead({ studentId, type: noteType, now: this.#timestamp() }));
        const { rows } = await trx.executeQuery(this.#queries.notesOfStudent({ studentId, type: noteType }));
        return rows.map(toNoteRecord);
      }),
    );
  }

  listAbsencesMarkSeen(studentId: string): Promise<AbsenceRecord[]> {
    return this.#run(() =>
      this.#writeTransaction(async (trx) => {
        const { rows } = await trx.executeQuery(this.#queries.absencesOfStudent({ studentId }));
        const absences = rows.map(toAbsenceRecord);
        // Skipping the no-op update keeps a repeated call from writing.
        if (absences.some((absence) => !absence.seen)) {
          await trx.executeQuery(this.#queries.markAbsencesSeen({ studentId, now: this.#timestamp() }));
        }
        return absences;
      }),
    );
  }

  /** On PostgreSQL, concurrent look-ups share one query (see #readStudents), like the writes that follow them. */
  findStudent(studentId: string): Promise<StudentPlacement | null> {
    return this.#run(async () => {
      if (this.#studentReads !== null) return this.#studentReads.submit(studentId);
      const { rows } = await this.#db.executeQuery(this.#queries.student({ studentId }));
      const row = rows[0];
      return row === undefined ? null : toStudentPlacement(row);
    });
  }

  // SendNotificationType reads the student, then queues: on PostgreSQL a
  // burst of calls would otherwise pay a round trip (and a statement the
  // server parses) each for the read even once their writes are grouped.
  async #readStudents(studentIds: readonly string[]): Promise<(StudentPlacement | null)[]> {
    const rows = await this.#db
      .selectFrom('students')
      .leftJoin('devices', 'devices.id', 'students.device_id')
      .select(['students.id', 'students.full_name', 'students.school_key', 'students.device_id', 'devices.push_token'])
      .where('students.id', 'in', [...new Set(studentIds)])
      .execute();
    const byId = new Map(rows.map((row) => [row.id, toStudentPlacement(row)]));
    return studentIds.map((id) => byId.get(id) ?? null);
  }

  /** Queues a push notification; on PostgreSQL with its NOTIFY, in a group commit with concurrent calls. */
  enqueuePushNotification(notification: NewPushNotification): Promise<string> {
    return this.#run(async () => {
      if (this.#pushBatches !== null) return this.#pushBatches.submit(notification);
      const [id] = await this.#insertPushNotifications([notification]);
      return id;
    });
  }

  /** Queues the message unless one of the limits is reached (checked and written in one serialised transaction). */
  admitAuthCode(message: NewAuthCodeMessage, limits: readonly AuthCodeLimit[]): Promise<AuthCodeAdmission> {
    return this.#run(() =>
      this.dialect === 'sqlite' ? this.#writeTransaction((trx) => admitAuthCode(trx, message, limits, this.#now())) : this.#admit({ message, limits }),
    );
  }

  /**
   * PostgreSQL: a dedicated connection LISTENing for queued messages; null on
   * SQLite (a worker there polls, and one in the server is told directly).
   */
  listenForOutbox(onNotification: (channel: string) => void): Promise<OutboxSubscription> | null {
    if (this.#listen === undefined) return null;
    if (this.#closing !== null) return Promise.reject(new StoreError('unavailable'));
    return this.#listen(onNotification);
  }

  // One statement: the rows and the NOTIFY commit together (a data-modifying
  // WITH runs to completion whether or not the outer query reads it).
  async #insertPushNotifications(notifications: readonly NewPushNotification[]): Promise<string[]> {
    const now = this.#timestamp();
    const rows = notifications.map((notification) => ({
      id: randomUUID(),
      device_id: notification.deviceId,
      student_id: notification.studentId,
      type: notification.type,
      title: notification.title,
      body: notification.body,
      data: JSON.stringify(notification.data),
      ...queuedColumns(now),
    }));
    if (this.dialect === 'sqlite') {
      await this.#db.insertInto('push_notifications').values(rows).execute();
    } else {
      await this.#db
        .with('queued', (db) => db.insertInto('push_notifications').values(rows).returning('id'))
        .selectNoFrom(sql<unknown>`pg_notify(${OUTBOX_CHANNEL}, 'push')`.as('notified'))
        .execute();
    }
    return rows.map((row) => row.id);
  }

  #admit(request: AdmissionRequest): Promise<AuthCodeAdmission> {
    if (this.#admissionBatches !== null) return this.#admissionBatches.submit(request);
    return this.#admitAuthCodes([request]).then((admissions) => admissions[0]);
  }

  // PostgreSQL: one serialised transaction for the lot, each call checked in
  // arrival order against the rows of those before it (see auth-code-admission.ts).
  #admitAuthCodes(requests: readonly AdmissionRequest[]): Promise<AuthCodeAdmission[]> {
    return this.#writeTransaction(async (trx) => {
      const admissions = await admitAuthCodes(trx, requests, this.#now());
      if (admissions.some((admission) => admission.admitted)) await notifyOutbox('sms').execute(trx);
      return admissions;
    });
  }

  /**
   * Upserts every record of the data set in one transaction. Throws
   * InvalidDataSetError (nothing written) for a bad or dangling value.
   */
  writeDataSet(dataSet: DataSet, options: WriteDataSetOptions = {}): Promise<DataSetCounts> {
    return this.#run(() => {
      const data = normaliseDataSet(dataSet, this.#timestamp());
      return this.#writeTransaction((trx) => writeNormalisedDataSet(trx, data, options));
    });
  }

  /** Outbox push notifications, oldest first. */
  listPushNotifications(filter: OutboxFilter = {}): Promise<PushNotificationRow[]> {
    return this.#run(async () => {
      let query = this.#db.selectFrom('push_notifications').selectAll().orderBy('created_at').orderBy('id');
      if (filter.status !== undefined) query = query.where('status', '=', filter.status);
      if (filter.limit !== undefined) query = query.limit(filter.limit);
      return (await query.execute()).map(toPushNotificationRow);
    });
  }

  /** Outbox auth-code messages, oldest first. */
  listAuthCodeMessages(filter: OutboxFilter = {}): Promise<AuthCodeMessageRow[]> {
    return this.#run(async () => {
      let query = this.#db.selectFrom('auth_code_messages').selectAll().orderBy('created_at').orderBy('id');
      if (filter.status !== undefined) query = query.where('status', '=', filter.status);
      if (filter.limit !== undefined) query = query.limit(filter.limit);
      return (await query.execute()).map(toAuthCodeMessageRow);
    });
  }

  /** A page of one outbox channel, newest first, with the total (the admin API). */
  listOutbox(channel: OutboxChannel, query: OutboxQuery): Promise<OutboxPage> {
    return this.#run(() => listOutbox(this.#db, channel, query));
  }

  /** One message of a channel by id, or null (the admin API). */
  getOutboxMessage(channel: OutboxChannel, id: string): Promise<OutboxMessage | null> {
    return this.#run(() => findOutboxMessage(this.#db, channel, id));
  }

  /** Re-queues one dead or failed message (see outbox-admin.ts). */
  requeueOutboxMessage(channel: OutboxChannel, id: string): Promise<RequeueResult> {
    return this.#run(() =>
      this.#writeTransaction(async (trx) => {
        const result = await requeueMessage(trx, channel, id, this.#timestamp());
        if (result === 'requeued' && this.dialect === 'postgres') await notifyOutbox(channel).execute(trx);
        return result;
      }),
    );
  }

  /** Re-queues every dead message of the channel that can still be sent; returns how many. */
  requeueDeadOutboxMessages(channel: OutboxChannel): Promise<number> {
    return this.#run(async () => {
      const count = await requeueDeadMessages(this.#db, channel, this.#timestamp());
      // After the update's own commit: the workers find the rows due.
      if (count > 0 && this.dialect === 'postgres') await notifyOutbox(channel).execute(this.#db);
      return count;
    });
  }

  /** Deletes sent and dead messages last changed before `before` (an ISO time); how many, per channel. Stops between batches once `signal` is aborted. */
  pruneOutbox(before: string, signal?: AbortSignal): Promise<Readonly<Record<OutboxChannel, number>>> {
    return this.#run(async () => ({
      push: await pruneFinishedMessages(this.#db, 'push', before, signal),
      sms: await pruneFinishedMessages(this.#db, 'sms', before, signal),
    }));
  }

  /** Counts by status and the oldest pending message, per channel. */
  outboxStats(): Promise<OutboxChannelStats[]> {
    return this.#run(() => Promise.all([outboxStats(this.#db, 'push'), outboxStats(this.#db, 'sms')]));
  }

  /** When the longest-waiting due message came due, or null (readiness: is a worker keeping up?). */
  oldestDueAt(): Promise<string | null> {
    return this.#run(() => oldestDueAt(this.#db, this.dialect, this.#timestamp()));
  }

  /** Claims up to `limit` due push notifications for `leaseSeconds` (see outbox-claims.ts). */
  claimPushNotifications(limit: number, leaseSeconds: number): Promise<ClaimedPushNotification[]> {
    return this.#run(() => this.#deliveryWrite((db) => claimPushNotifications(db, this.dialect, this.#claimRequest(limit, leaseSeconds))));
  }

  /** Claims up to `limit` due auth-code messages for `leaseSeconds`. */
  claimAuthCodeMessages(limit: number, leaseSeconds: number): Promise<ClaimedAuthCodeMessage[]> {
    return this.#run(() => this.#deliveryWrite((db) => claimAuthCodeMessages(db, this.dialect, this.#claimRequest(limit, leaseSeconds))));
  }

  /** Records how an attempt ended; false when the claim was no longer current (nothing written). */
  completeDelivery(channel: OutboxChannel, id: string, claimToken: string, completion: DeliveryCompletion): Promise<boolean> {
    return this.#run(() => completeDelivery(this.#db, OUTBOX_TABLE[channel], id, claimToken, completion, this.#timestamp()));
  }

  /**
   * Records many attempts in one transaction (one commit instead of one per
   * message); each result says whether that claim was still current.
   */
  completeDeliveries(completions: readonly DeliveryCompletionEntry[]): Promise<boolean[]> {
    return this.#run(() =>
      this.#deliveryWrite(async (trx) => {
        const now = this.#timestamp();
        const current = new Set<string>();
        for (const channel of ['push', 'sms'] as const) {
          const sent = completions.flatMap((e) =>
            e.channel === channel && e.completion.status === 'sent' ? [{ ...e, providerMessageId: e.completion.providerMessageId }] : [],
          );
          for (const id of await completeSent(trx, this.dialect, OUTBOX_TABLE[channel], sent, now)) current.add(`${channel}:${id}`);
        }
        for (const e of completions) {
          if (e.completion.status === 'sent') continue;
          if (await completeDelivery(trx, OUTBOX_TABLE[e.channel], e.id, e.claimToken, e.completion, now)) current.add(`${e.channel}:${e.id}`);
        }
        return completions.map((e) => current.has(`${e.channel}:${e.id}`));
      }),
    );
  }

  /** Writes audit entries in one statement (src/access/audit-trail.ts). */
  insertAuditEntries(entries: readonly NewAuditRow[]): Promise<void> {
    return this.#run(() => insertAuditRows(this.#db, entries));
  }

  /** A page of the audit trail, newest first, with the total (the admin API). */
  listAuditEntries(query: AuditQuery): Promise<AuditPage> {
    return this.#run(() => listAuditRows(this.#db, query));
  }

  /** Deletes audit entries older than `before` (an ISO time); how many. Stops between batches once `signal` is aborted. */
  pruneAuditEntries(before: string, signal?: AbortSignal): Promise<number> {
    return this.#run(() => pruneAuditRows(this.#db, before, signal));
  }

  /** Adds a node's call counts and reads the merged totals, in one transaction (see access-counters.ts). */
  mergeAccessCounters(merge: CounterMerge): Promise<Map<string, number>> {
    return this.#run(() => this.#writeTransaction((trx) => mergeCounters(trx, merge)));
  }

  /** Deletes a batch of counter rows of windows that ended before `before`; how many. */
  pruneAccessCounters(before: string): Promise<number> {
    return this.#run(() => pruneCounters(this.#db, before));
  }

  /** Forgets a device's push token if it is still `token`; returns whether it did. */
  removeDeviceToken(deviceId: string, token: string): Promise<boolean> {
    return this.#run(() => removeDeviceToken(this.#db, deviceId, token, this.#timestamp()));
  }

  #claimRequest(limit: number, leaseSeconds: number): ClaimRequest {
    const now = this.#now();
    return {
      limit,
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + leaseSeconds * 1000).toISOString(),
      claimToken: randomUUID(),
    };
  }

  /** Like writeDataSet, and also counts how many records were already stored (the importer's summary). */
  importDataSet(dataSet: DataSet, options: WriteDataSetOptions = {}): Promise<ImportCounts> {
    return this.#run(() => {
      const data = normaliseDataSet(dataSet, this.#timestamp());
      return this.#writeTransaction((trx) => importNormalisedDataSet(trx, data, options));
    });
  }

  /** Every stored record, in the import format (the export). */
  readDataSet(): Promise<Required<DataSet>> {
    return this.#run(async () => {
      const [schools, devices, students, notes, absences] = await Promise.all(COLLECTIONS.map((c) => readAllRecords(this.#db, c)));
      return { schools, devices, students, notes, absences } as Required<DataSet>;
    });
  }

  /** One record by key (a school by any form of its base URL); null when none. */
  getRecord<C extends DataSetCollection>(collection: C, key: string): Promise<RecordOf<C> | null> {
    return this.#run(() => findRecord(this.#db, collection, key));
  }

  listRecords<C extends DataSetCollection>(collection: C, filter: RecordFilter, page: { limit: number; offset: number }): Promise<RecordPage<C>> {
    return this.#run(() => listRecords(this.#db, collection, filter, page));
  }

  /** Which of `keys` are stored. */
  existingKeys(collection: DataSetCollection, keys: readonly string[]): Promise<Set<string>> {
    return this.#run(() => existingKeys(this.#db, collection, keys));
  }

  /** Reads one record and writes what `decide` returns, in one transaction (see record-change.ts). */
  changeRecord<C extends DataSetCollection>(
    collection: C,
    key: string,
    decide: (current: RecordOf<C> | null) => RecordDecision<C>,
  ): Promise<RecordChangeResult<C>> {
    return this.#run(() => this.#writeTransaction((trx) => changeRecord(trx, collection, key, decide, this.#timestamp())));
  }

  deleteRecord(collection: DataSetCollection, key: string): Promise<DeleteResult> {
    return this.#run(() => this.#writeTransaction((trx) => deleteRecord(trx, collection, key)));
  }

  /** Which migrations are applied; readiness wants `current`. */
  migrationStatus(): Promise<MigrationStatus> {
    return this.#run(() => readMigrationStatus(this.#db, this.dialect));
  }

  /** True when no school is stored (the demo data may then be loaded). */
  isEmpty(): Promise<boolean> {
    return this.#run(async () => (await this.#db.executeQuery(this.#queries.anySchool({}))).rows.length === 0);
  }

  /** Never throws: a readiness probe wants a yes or no. */
  ping(): Promise<boolean> {
    return this.#run(() => this.#db.executeQuery(this.#queries.ping({}))).then(
      () => true,
      () => false,
    );
  }

  /**
   * Refuses new calls at once (StoreError "unavailable"), lets those under
   * way finish, then releases the database. Safe to repeat.
   */
  close(): Promise<void> {
    this.#closing ??= this.#drain().then(() =>
      // A failure to close leaves nothing the caller could do differently.
      this.#release().catch(() => undefined),
    );
    return this.#closing;
  }

  async #drain(): Promise<void> {
    if (this.#active === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => {
        this.#onIdle = resolve;
      }),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_GRACE_MS);
      }),
    ]);
    clearTimeout(timer);
  }

  #timestamp(): string {
    return this.#now().toISOString();
  }

  // The worker's writes are single statements whose atomicity each message
  // needs on its own. PostgreSQL runs them as they come (a transaction would
  // add two round trips per claim); SQLite takes the write lock up front so
  // that a claim cannot fail on a stale read (see transaction.ts), and one
  // commit covers a batch of results.
  #deliveryWrite<T>(work: (db: Kysely<StoreDatabase>) => Promise<T>): Promise<T> {
    return this.dialect === 'postgres' ? work(this.#db) : this.#writeTransaction(work);
  }

  #writeTransaction<T>(work: (trx: Kysely<StoreDatabase>) => Promise<T>): Promise<T> {
    return inWriteTransaction(this.#db, this.dialect, work);
  }

  // Every public method funnels through here so that callers only ever see a
  // StoreError (or an InvalidDataSetError describing their input).
  async #run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#closing !== null) throw new StoreError('unavailable');
    this.#active++;
    try {
      return await work();
    } catch (error) {
      if (error instanceof InvalidDataSetError) throw error;
      throw toStoreError(error);
    } finally {
      this.#active--;
      if (this.#active === 0) this.#onIdle?.();
    }
  }
}
