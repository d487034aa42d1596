// The admin role: what an operator reads and changes through the admin API
// and `npm run outbox`: records one by one, the outbox's messages (listed,
// re-queued), and the audit trail.
import { OUTBOX_CHANNELS } from '../shared/outbox-channel';
import { listAuditRows, type AuditPage, type AuditQuery } from './audit-and-counters/access-audit';
import type { StoreCore } from './core';
import type { DataSetCollection } from './data-set/data-set';
import {
  toAuthCodeMessageRow,
  toPushNotificationRow,
  type AuthCodeMessageRow,
  type OutboxFilter,
  type PushNotificationRow,
} from './outbox/outbox';
import {
  cancelPushNotification,
  outboxStats,
  requeueDeadMessages,
  requeueMessage,
  type OutboxChannel,
  type CancelResult,
  type OutboxChannelStats,
  type RequeueResult,
} from './outbox/outbox-admin';
import {
  findOutboxMessage,
  listOldestFirst,
  listOutbox,
  type OutboxMessage,
  type OutboxPage,
  type OutboxQuery,
} from './outbox/outbox-listing';
import { notifyOutbox } from './outbox/outbox-notify';
import { changeRecord, type RecordChangeResult, type RecordDecision } from './records/record-change';
import {
  deleteRecord,
  findRecord,
  listRecords,
  type DeleteResult,
  type RecordFilter,
  type RecordOf,
  type RecordPage,
} from './records/records';

import {
  deleteSubscription,
  findSchool,
  putSubscription,
  readSubscription,
  type EventSubscriptionView,
} from './outbox/events';

export interface AdminStore {
  /** One record by key (a school by any form of its base URL); null when none. */
  getRecord<C extends DataSetCollection>(collection: C, key: string): Promise<RecordOf<C> | null>;
  /** One page of a collection, in key order, with the total. */
  listRecords<C extends DataSetCollection>(
    collection: C,
    filter: RecordFilter,
    page: { limit: number; offset: number },
  ): Promise<RecordPage<C>>;
  /** Reads one record and writes what `decide` returns, in one transaction (see record-change.ts). */
  changeRecord<C extends DataSetCollection>(
    collection: C,
    key: string,
    decide: (current: RecordOf<C> | null) => RecordDecision<C>,
  ): Promise<RecordChangeResult<C>>;
  /** Deletes one record, with what depends on it, or says why not (see records.ts). */
  deleteRecord(collection: DataSetCollection, key: string): Promise<DeleteResult>;
  /** Outbox push notifications, oldest first. */
  listPushNotifications(filter?: OutboxFilter): Promise<PushNotificationRow[]>;
  /** Outbox auth-code messages, oldest first. */
  listAuthCodeMessages(filter?: OutboxFilter): Promise<AuthCodeMessageRow[]>;
  /** A page of one outbox channel, newest first, with the total. */
  listOutbox(channel: OutboxChannel, query: OutboxQuery): Promise<OutboxPage>;
  /** One message of a channel by id, or null. */
  getOutboxMessage(channel: OutboxChannel, id: string): Promise<OutboxMessage | null>;
  /** Counts by status and the oldest pending message, per channel. */
  outboxStats(): Promise<OutboxChannelStats[]>;
  /** Re-queues one dead or failed message (see outbox-admin.ts). */
  requeueOutboxMessage(channel: OutboxChannel, id: string): Promise<RequeueResult>;
  /** Re-queues every dead message of the channel that can still be sent (with this last error only, when given); returns how many. */
  requeueDeadOutboxMessages(channel: OutboxChannel, lastError?: string): Promise<number>;
  /** Removes a push notification no worker has claimed yet (see outbox-admin.ts). */
  cancelPushNotification(id: string): Promise<CancelResult>;
  /** A page of the audit trail, newest first, with the total. */
  listAuditEntries(query: AuditQuery): Promise<AuditPage>;
  /**
   * Sets a school's event subscription (active, failures forgotten); null
   * when there is no such school. With `keepStoredSecret`, a school that has
   * a subscription keeps its secret and `secret` is used only for a new one.
   */
  putEventSubscription(
    baseUrl: string,
    subscription: { url: string; secret: string; keepStoredSecret?: boolean },
  ): Promise<EventSubscriptionView | null>;
  /** A school's event subscription, never its secret; `no_school` or `none` when there is nothing to show. */
  getEventSubscription(baseUrl: string): Promise<EventSubscriptionView | 'no_school' | 'none'>;
  /** Removes a school's event subscription and its undelivered events; whether there was one. */
  deleteEventSubscription(baseUrl: string): Promise<boolean>;
}

export function createAdminStore(core: StoreCore): AdminStore {
  const { db, dialect, run } = core;
  return {
    getRecord: (collection, key) => run(() => findRecord(db, collection, key)),
    listRecords: (collection, filter, page) => run(() => listRecords(db, collection, filter, page)),
    changeRecord: (collection, key, decide) =>
      run(() => core.writeTransaction((trx) => changeRecord(trx, collection, key, decide, core.timestamp()))),
    deleteRecord: (collection, key) => run(() => core.writeTransaction((trx) => deleteRecord(trx, collection, key))),

    listPushNotifications: (filter = {}) =>
      run(async () => (await listOldestFirst(db, 'push', filter)).map(toPushNotificationRow)),
    listAuthCodeMessages: (filter = {}) =>
      run(async () => (await listOldestFirst(db, 'sms', filter)).map(toAuthCodeMessageRow)),

    listOutbox: (channel, query) => run(() => listOutbox(db, channel, query)),
    getOutboxMessage: (channel, id) => run(() => findOutboxMessage(db, channel, id)),
    outboxStats: () => run(() => Promise.all(OUTBOX_CHANNELS.map((channel) => outboxStats(db, channel)))),

    requeueOutboxMessage: (channel, id) =>
      run(() =>
        core.writeTransaction(async (trx) => {
          const result = await requeueMessage(trx, channel, id, core.timestamp());
          if (result === 'requeued' && dialect === 'postgres') await notifyOutbox(channel).execute(trx);
          return result;
        }),
      ),

    requeueDeadOutboxMessages: (channel, lastError) =>
      run(async () => {
        const count = await requeueDeadMessages(db, channel, core.timestamp(), lastError);
        // After the update's own commit: the workers find the rows due.
        if (count > 0 && dialect === 'postgres') await notifyOutbox(channel).execute(db);
        return count;
      }),

    cancelPushNotification: (id) => run(() => cancelPushNotification(db, id)),

    listAuditEntries: (query) => run(() => listAuditRows(db, query)),

    putEventSubscription: (baseUrl, subscription) =>
      run(() =>
        core.writeTransaction(async (trx) => {
          const school = await findSchool(trx, baseUrl);
          if (school === null) return null;
          await putSubscription(trx, school.key, subscription, core.timestamp());
          return readSubscription(trx, school.key, school.baseUrl);
        }),
      ),
    getEventSubscription: (baseUrl) =>
      run(async () => {
        const school = await findSchool(db, baseUrl);
        if (school === null) return 'no_school';
        return (await readSubscription(db, school.key, school.baseUrl)) ?? 'none';
      }),
    deleteEventSubscription: (baseUrl) =>
      run(() =>
        core.writeTransaction(async (trx) => {
          const school = await findSchool(trx, baseUrl);
          return school !== null && deleteSubscription(trx, school.key);
        }),
      ),
  };
}
