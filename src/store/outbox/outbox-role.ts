// The outbox role: the operations queue messages (types.ts, OutboxQueue), the
// delivery worker claims them, records how each attempt ended, and prunes
// finished ones. What operators do with the outbox is the admin role's.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { StoreCore } from '../core';
import type { EventSubscriptionState } from '../database';
import { OUTBOX_CHANNELS } from '../../shared/outbox-channel';
import { StoreError } from '../errors';
import type { NewAuthCodeMessage, NewPushNotification, OutboxQueue } from '../types';
import { admitAuthCode, admitAuthCodes, type AuthCodeAdmission, type AuthCodeLimit } from './auth-code-admission';
import { GroupCommit, type GroupCommitBatching } from './group-commit';
import { prepareQuery } from '../connection/prepared';
import { queuedColumns } from './outbox';
import { timeOrderedId } from './time-ordered-id';
import { outboxStats, pruneFinishedMessages, type OutboxChannel, type OutboxChannelStats } from './outbox-admin';
import {
  claimAuthCodeMessages,
  claimPushNotifications,
  completeDelivery,
  completeSent,
  oldestDueAt,
  markSendStarted,
  pushClaimStatements,
  recordAttempts,
  removeDeviceToken,
  settleInterruptedSends,
  type ClaimedAuthCodeMessage,
  type ClaimedPushNotification,
  type ClaimRequest,
  type DeliveryCompletionEntry,
} from './outbox-claims';
import {
  claimEvents,
  completeEvents,
  EVENT_SOURCE_COLUMNS,
  pruneSentEvents,
  queuedEventsFrom,
  recordOutcomeEvents,
  queuedEventStatement,
  eventStatements,
  subscriptionStates,
  type ClaimedEvent,
  type EventCompletionEntry,
  type EventHealthRule,
} from './events';
import { notifyOutbox, OUTBOX_CHANNEL, type OutboxSubscription } from './outbox-notify';
import { deleteHeartbeat, writeHeartbeat } from './worker-heartbeats';
import { insertRefusedCall, pruneRefusedCalls } from './refused-calls';

export interface AuthCodeClaim {
  readonly messages: ClaimedAuthCodeMessage[];
  /** Ids of the messages just recorded `uncertain`: their worker stopped after handing them to the gateway. */
  readonly interrupted: string[];
}

export interface Outbox extends OutboxQueue {
  /**
   * PostgreSQL: a dedicated connection LISTENing for queued messages; null on
   * SQLite (a worker there polls, and one in the server is told directly).
   */
  listenForOutbox(onNotification: (channel: string) => void): Promise<OutboxSubscription> | null;
  /** Claims up to `limit` due push notifications for `leaseSeconds` (see outbox-claims.ts). */
  claimPushNotifications(limit: number, leaseSeconds: number): Promise<ClaimedPushNotification[]>;
  /**
   * Claims up to `limit` due auth-code messages for `leaseSeconds`, and first
   * records `uncertain` those whose worker stopped after handing them to the
   * gateway (see outbox-claims.ts).
   */
  claimAuthCodeMessages(limit: number, leaseSeconds: number): Promise<AuthCodeClaim>;
  /** This claim's attempt goes to the gateway now; false when the claim is no longer current (send nothing). */
  markSmsSendStarted(id: string, claimToken: string): Promise<boolean>;
  /**
   * Records how attempts ended, in one transaction (one commit instead of one
   * per message); each result says whether that claim was still current
   * (false: nothing written for it).
   */
  completeDeliveries(completions: readonly DeliveryCompletionEntry[]): Promise<boolean[]>;
  /** Forgets a device's push token if it is still `token`; returns whether it did. */
  removeDeviceToken(deviceId: string, token: string): Promise<boolean>;
  /** The FCM project each of these schools names (null: none); a school not stored is left out. */
  schoolFcmProjects(schoolKeys: readonly string[]): Promise<ReadonlyMap<string, string | null>>;
  /** Counts by status and the oldest pending message, per channel. */
  outboxStats(): Promise<OutboxChannelStats[]>;
  /**
   * When the longest-waiting due message came due, of one channel or of both,
   * or null (readiness: is a worker keeping up? the metrics: how late is it?).
   */
  oldestDueAt(channel?: OutboxChannel): Promise<string | null>;
  /** AuthCode messages queued after `since` (an ISO time): how much of a global limit's window is spent. */
  countAuthCodesSince(since: string): Promise<number>;
  /** Deletes sent and dead messages last changed before `before` (an ISO time); how many, per channel. Stops between batches once `signal` is aborted. */
  pruneOutbox(before: string, signal?: AbortSignal): Promise<Readonly<Record<OutboxChannel, number>>>;
  /** A delivery worker says it is alive (src/delivery/heartbeat.ts); rows silent for a day go. */
  workerHeartbeat(id: string, startedAt: string): Promise<void>;
  /** A delivery worker stopped: its heartbeat row goes. */
  workerStopped(id: string): Promise<void>;
  /** Claims up to `limit` due delivery events, at most `perSchool` in flight per school, in order per message (see events.ts). */
  claimEvents(limit: number, perSchool: number, leaseSeconds: number): Promise<ClaimedEvent[]>;
  /** Records how event deliveries ended and what that says of each receiver; per entry, whether its claim was current. */
  completeEvents(entries: readonly EventCompletionEntry[], rule: EventHealthRule): Promise<boolean[]>;
  /** Event subscriptions by state. */
  eventSubscriptionStates(): Promise<Readonly<Record<EventSubscriptionState, number>>>;
  /** Deletes delivered events last changed before `before` (an ISO time); how many. */
  pruneEvents(before: string, signal?: AbortSignal): Promise<number>;
  /** Deletes the refused calls recorded before `before` (docs/console.md#refused-calls). */
  pruneRefusedCalls(before: string, signal?: AbortSignal): Promise<number>;
}

export interface OutboxOptions {
  /** PostgreSQL: how concurrent queueing calls share a commit (see group-commit.ts); null writes each call on its own. */
  readonly batching: GroupCommitBatching | null;
  /** How queued push notifications share a commit, when not as `batching` says (SQLite: they do, the login codes do not). */
  readonly pushBatching?: GroupCommitBatching | null;
  /** PostgreSQL: opens a LISTEN connection for the outbox channel (see outbox-notify.ts). */
  readonly listen?: (onNotification: (channel: string) => void) => Promise<OutboxSubscription>;
}

interface AdmissionRequest {
  readonly message: NewAuthCodeMessage;
  readonly limits: readonly AuthCodeLimit[];
  /** Of the queueing span, kept with the row (migration 0007); null without tracing. */
  readonly traceparent: string | null;
}

interface PushRequest {
  readonly notification: NewPushNotification;
  readonly traceparent: string | null;
}

export function createOutbox(core: StoreCore, options: OutboxOptions): Outbox {
  const { db, dialect, run, tracer } = core;
  // The event worker's statements, compiled once (events.ts), and the push claim's (outbox-claims.ts).
  const events = eventStatements(db, dialect);
  const pushClaims = pushClaimStatements(db, dialect);

  const sqliteStatements =
    dialect === 'sqlite'
      ? {
          insertPush: prepareQuery(
            [
              'id',
              'deviceId',
              'studentId',
              'type',
              'title',
              'body',
              'data',
              'traceparent',
              'schoolKey',
              'now',
              'nextAttemptAt',
              'options',
            ],
            (p) =>
              db.insertInto('push_notifications').values({
                id: p.id,
                device_id: p.deviceId,
                student_id: p.studentId,
                type: p.type,
                title: p.title,
                body: p.body,
                data: p.data,
                traceparent: p.traceparent,
                // As below: the student's school when the caller did not say it.
                school_key: sql<
                  string | null
                >`coalesce(${p.schoolKey}, (select school_key from students where id = ${p.studentId}))`,
                ...queuedColumns(p.now),
                next_attempt_at: p.nextAttemptAt,
                options: p.options,
              }),
          ),
          queuedEvent: queuedEventStatement(db),
        }
      : null;

  // One statement: the rows and the NOTIFY commit together (a data-modifying
  // WITH runs to completion whether or not the outer query reads it).
  const insertPushNotifications = async (requests: readonly PushRequest[]): Promise<string[]> => {
    const at = core.now();
    const now = at.toISOString();
    // Time-ordered: each row's primary-key entry lands beside the last one's (time-ordered-id.ts).
    const ids = requests.map(() => timeOrderedId(at.getTime()));
    const optionsText = (notification: NewPushNotification): string | null =>
      notification.options === undefined ? null : JSON.stringify(notification.options);
    if (sqliteStatements !== null) {
      // With their notification.queued events (docs/delivery.md#delivery-events), in one transaction,
      // from statements compiled once: building them with Kysely cost more than SQLite's work. The
      // events are one statement for the batch (docs/benchmark.md#ingestion).
      const statements: ReturnType<typeof sqliteStatements.insertPush>[] = [];
      for (let index = 0; index < requests.length; index++) {
        const { notification, traceparent } = requests[index];
        statements.push(
          sqliteStatements.insertPush({
            id: ids[index],
            deviceId: notification.deviceId,
            studentId: notification.studentId,
            type: notification.type,
            title: notification.title,
            body: notification.body,
            data: JSON.stringify(notification.data),
            traceparent,
            schoolKey: notification.schoolKey ?? null,
            now,
            // Held through quiet hours or scheduled: the claim takes it once due (docs/delivery.md#quiet-hours).
            nextAttemptAt: notification.dueAt ?? now,
            options: optionsText(notification),
          }),
        );
      }
      statements.push(sqliteStatements.queuedEvent({ ids: JSON.stringify(ids), now }));
      await core.write(statements);
      return ids;
    }
    const rows = requests.map(({ notification, traceparent }, index) => ({
      id: ids[index],
      device_id: notification.deviceId,
      student_id: notification.studentId,
      type: notification.type,
      title: notification.title,
      body: notification.body,
      data: JSON.stringify(notification.data),
      traceparent,
      // Kept with the message so that the console lists a school's messages by an index (migration 0010).
      school_key:
        notification.schoolKey ??
        sql<string | null>`(select school_key from students where id = ${notification.studentId})`,
      ...queuedColumns(now),
      next_attempt_at: notification.dueAt ?? now,
      options: optionsText(notification),
    }));
    const queued = db
      .insertInto('push_notifications')
      .values(rows)
      .returning([...EVENT_SOURCE_COLUMNS]);
    await sql`with queued as (${queued}), events as (${queuedEventsFrom('queued', now)})
      select pg_notify(${OUTBOX_CHANNEL}, 'push') as notified`.execute(db);
    return ids;
  };

  // PostgreSQL: one serialised transaction for the lot, each call checked in
  // arrival order against the rows of those before it (see auth-code-admission.ts).
  const admitInOneTransaction = (requests: readonly AdmissionRequest[]): Promise<AuthCodeAdmission[]> =>
    core.writeTransaction(async (trx) => {
      const admissions = await admitAuthCodes(trx, requests, core.now());
      if (admissions.some((admission) => admission.admitted)) await notifyOutbox('sms').execute(trx);
      return admissions;
    });

  const { batching } = options;
  const pushBatching = options.pushBatching === undefined ? batching : options.pushBatching;
  const pushBatches =
    pushBatching === null ? null : new GroupCommit({ ...pushBatching, write: insertPushNotifications });
  const admissionBatches = batching === null ? null : new GroupCommit({ ...batching, write: admitInOneTransaction });

  const claimRequest = (limit: number, leaseSeconds: number): ClaimRequest => {
    const now = core.now();
    return {
      limit,
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + leaseSeconds * 1000).toISOString(),
      claimToken: randomUUID(),
    };
  };

  // The worker's writes are single statements whose atomicity each message
  // needs on its own. PostgreSQL runs them as they come (a transaction would
  // add two round trips per claim); SQLite takes the write lock up front so
  // that a claim cannot fail on a stale read (see transaction.ts), and one
  // commit covers a batch of results.
  const deliveryWrite = <T>(work: (q: typeof db) => Promise<T>): Promise<T> =>
    dialect === 'postgres' ? work(db) : core.writeTransaction(work);

  // In a group commit with concurrent calls (whose statements then show
  // under the call that opened the batch); on PostgreSQL with its NOTIFY.
  const queuePush = async (request: PushRequest): Promise<string> => {
    if (pushBatches !== null) return pushBatches.submit(request);
    const [id] = await insertPushNotifications([request]);
    return id;
  };

  // Checked and written in one serialised transaction.
  const admit = (request: AdmissionRequest): Promise<AuthCodeAdmission> => {
    if (dialect === 'sqlite')
      return core.writeTransaction((trx) =>
        admitAuthCode(trx, request.message, request.limits, core.now(), request.traceparent),
      );
    if (admissionBatches !== null) return admissionBatches.submit(request);
    return admitInOneTransaction([request]).then((admissions) => admissions[0]);
  };

  return {
    enqueuePushNotification: (notification) =>
      run(() => {
        if (tracer === null) return queuePush({ notification, traceparent: null });
        return tracer.enqueue('push', async (span) => {
          const id = await queuePush({ notification, traceparent: span.traceparent });
          span.queued(id);
          return id;
        });
      }),

    admitAuthCode: (message, limits) =>
      run(() => {
        if (tracer === null) return admit({ message, limits, traceparent: null });
        return tracer.enqueue('sms', async (span) => {
          const admission = await admit({ message, limits, traceparent: span.traceparent });
          if (admission.admitted) span.queued(admission.id);
          else span.refused(admission.limit.scope);
          return admission;
        });
      }),

    listenForOutbox(onNotification) {
      if (options.listen === undefined) return null;
      if (core.closing) return Promise.reject(new StoreError('unavailable'));
      return options.listen(onNotification);
    },

    claimPushNotifications: (limit, leaseSeconds) =>
      run(() =>
        deliveryWrite((q) => claimPushNotifications(q, dialect, claimRequest(limit, leaseSeconds), pushClaims)),
      ),

    claimAuthCodeMessages: (limit, leaseSeconds) =>
      run(() =>
        deliveryWrite(async (q) => {
          const request = claimRequest(limit, leaseSeconds);
          const interrupted = await settleInterruptedSends(q, dialect, request.now);
          return { messages: await claimAuthCodeMessages(q, dialect, request), interrupted };
        }),
      ),

    markSmsSendStarted: (id, claimToken) => run(() => markSendStarted(db, id, claimToken, core.timestamp())),

    // One transaction on both dialects: the delivery events are written with the results they report.
    completeDeliveries: (completions) =>
      run(() =>
        core.writeTransaction(async (trx) => {
          const now = core.timestamp();
          const current = new Set<string>();
          for (const channel of OUTBOX_CHANNELS) {
            const sent = completions.flatMap((e) =>
              e.channel === channel && e.completion.status === 'sent'
                ? [{ ...e, providerMessageId: e.completion.providerMessageId }]
                : [],
            );
            for (const id of await completeSent(trx, dialect, channel, sent, now)) current.add(`${channel}:${id}`);
          }
          for (const e of completions) {
            if (e.completion.status === 'sent') continue;
            if (await completeDelivery(trx, e.channel, e.id, e.claimToken, e.completion, now))
              current.add(`${e.channel}:${e.id}`);
          }
          for (const channel of OUTBOX_CHANNELS) {
            const written = completions.flatMap((e) =>
              e.channel === channel && current.has(`${channel}:${e.id}`) ? [{ id: e.id, code: e.code ?? null }] : [],
            );
            await recordAttempts(trx, dialect, channel, written, now);
          }
          // Delivery events for the schools' systems, with the results they report (login codes have no school).
          const pushWritten = completions.filter((e) => e.channel === 'push' && current.has(`push:${e.id}`));
          await recordOutcomeEvents(
            trx,
            events,
            pushWritten.map((e) => e.id),
            pushWritten.flatMap((e) => (e.tokenGone === true ? [e.id] : [])),
            now,
          );
          return completions.map((e) => current.has(`${e.channel}:${e.id}`));
        }),
      ),

    removeDeviceToken: (deviceId, token) => run(() => removeDeviceToken(db, deviceId, token, core.timestamp())),

    schoolFcmProjects: (schoolKeys) =>
      run(async () => {
        if (schoolKeys.length === 0) return new Map<string, string | null>();
        const rows = await db
          .selectFrom('schools')
          .select(['key', 'fcm_project'])
          .where('key', 'in', [...schoolKeys])
          .execute();
        return new Map(rows.map((row) => [row.key, row.fcm_project]));
      }),

    outboxStats: () => run(() => Promise.all(OUTBOX_CHANNELS.map((channel) => outboxStats(db, channel)))),

    oldestDueAt: (channel) =>
      run(() => oldestDueAt(db, dialect, core.timestamp(), channel === undefined ? undefined : [channel])),

    // The index on created_at (migration 0002) keeps this a range count of at most a window's messages.
    countAuthCodesSince: (since) =>
      run(async () => {
        const row = await db
          .selectFrom('auth_code_messages')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('created_at', '>', since)
          .executeTakeFirst();
        return Number(row?.n ?? 0);
      }),

    workerHeartbeat: (id, startedAt) => run(() => writeHeartbeat(db, id, startedAt, core.timestamp())),
    workerStopped: (id) => run(() => deleteHeartbeat(db, id)),

    claimEvents: (limit, perSchool, leaseSeconds) =>
      run(() =>
        core.writeTransaction((trx) =>
          claimEvents(trx, dialect, events, { ...claimRequest(limit, leaseSeconds), perSchool }),
        ),
      ),
    completeEvents: (entries, rule) =>
      run(() => core.writeTransaction((trx) => completeEvents(trx, events, entries, rule, core.timestamp()))),
    eventSubscriptionStates: () => run(() => subscriptionStates(db)),
    pruneEvents: (before, signal) => run(() => pruneSentEvents(db, before, signal)),
    pruneRefusedCalls: (before, signal) => run(() => pruneRefusedCalls(db, before, signal)),
    recordRefusedCall: (call) => run(() => insertRefusedCall(db, dialect, call, core.timestamp())),

    pruneOutbox: (before, signal) =>
      run(async () => ({
        push: await pruneFinishedMessages(db, 'push', before, signal),
        sms: await pruneFinishedMessages(db, 'sms', before, signal),
      })),
  };
}
