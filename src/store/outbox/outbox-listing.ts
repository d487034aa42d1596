// The outbox as the admin API pages through it: newest first, so that the
// message just queued is on the first page, with a total for the pager.
import type { Kysely, Selectable } from 'kysely';
import type { OutboxStatus, StoreDatabase } from '../database';
import {
  toAuthCodeMessageRow,
  toPushNotificationRow,
  type AuthCodeMessageRow,
  type OutboxFilter,
  type PushNotificationRow,
} from './outbox';
import { channelTable } from './channel-table';
import type { OutboxChannel } from './outbox-admin';
import type { OutboxTable } from '../../shared/outbox-channel';

export interface OutboxQuery {
  readonly status?: OutboxStatus;
  /** Push only. */
  readonly studentId?: string;
  /** Push only. */
  readonly deviceId?: string;
  readonly limit: number;
  readonly offset: number;
}

export type OutboxPage =
  | { readonly channel: 'push'; readonly items: PushNotificationRow[]; readonly total: number }
  | { readonly channel: 'sms'; readonly items: AuthCodeMessageRow[]; readonly total: number };

export async function listOutbox(
  db: Kysely<StoreDatabase>,
  channel: OutboxChannel,
  query: OutboxQuery,
): Promise<OutboxPage> {
  const { db: typed, table } = channelTable(db, channel);
  let base = typed.selectFrom(table);
  if (query.status !== undefined) base = base.where('status', '=', query.status);
  // The student and the device are the push table's columns.
  if (channel === 'push') {
    if (query.studentId !== undefined) base = base.where('student_id', '=', query.studentId);
    if (query.deviceId !== undefined) base = base.where('device_id', '=', query.deviceId);
  }
  const counted = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  const total = Number(counted?.n ?? 0);
  const rows = await base
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(query.limit)
    .offset(query.offset)
    .execute();
  return channel === 'push'
    ? { channel, items: channelTable(db, channel).rowsOf(rows).map(toPushNotificationRow), total }
    : { channel, items: channelTable(db, channel).rowsOf(rows).map(toAuthCodeMessageRow), total };
}

/** A channel's rows oldest first, as `npm run outbox` and the tests list them. */
export async function listOldestFirst<C extends OutboxChannel>(
  db: Kysely<StoreDatabase>,
  channel: C,
  filter: OutboxFilter,
): Promise<Selectable<StoreDatabase[OutboxTable<C>]>[]> {
  const { db: typed, table, rowsOf } = channelTable(db, channel);
  let query = typed.selectFrom(table).selectAll().orderBy('created_at').orderBy('id');
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.limit !== undefined) query = query.limit(filter.limit);
  return rowsOf(await query.execute());
}

export type OutboxMessage =
  | { readonly channel: 'push'; readonly item: PushNotificationRow }
  | { readonly channel: 'sms'; readonly item: AuthCodeMessageRow };

/** One message of a channel by id, or null. */
export async function findOutboxMessage(
  db: Kysely<StoreDatabase>,
  channel: OutboxChannel,
  id: string,
): Promise<OutboxMessage | null> {
  if (channel === 'push') {
    const row = await db.selectFrom('push_notifications').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? null : { channel, item: toPushNotificationRow(row) };
  }
  const row = await db.selectFrom('auth_code_messages').selectAll().where('id', '=', id).executeTakeFirst();
  return row === undefined ? null : { channel, item: toAuthCodeMessageRow(row) };
}
