// What operators do to the outbox by hand: re-queue a message that gave up,
// and see how deep and how old the queue is. The delivery worker's own
// claim/complete/retry steps live with the worker's queries.
import type { Kysely } from 'kysely';
import { OUTBOX_TABLE as TABLE, type OutboxChannel } from '../../shared/outbox-channel';
import type { OutboxStatus, StoreDatabase } from '../database';
import { PRUNE_BATCH, deleteInBatches } from '../delete-in-batches';
import { SETTLED } from './settled';

export type { OutboxChannel };

export type RequeueResult = 'requeued' | 'not_found' | 'not_dead' | 'code_erased';

export interface OutboxChannelStats {
  readonly channel: OutboxChannel;
  readonly counts: Readonly<Record<OutboxStatus, number>>;
  /** Creation time of the oldest message not yet sent or dead (queued, sending or failed); null when none. */
  readonly oldestPendingAt: string | null;
}

const PENDING: OutboxStatus[] = ['queued', 'sending', 'failed'];

/**
 * Puts a dead (or failed) message back in the queue, due now, with its
 * attempts reset. An auth code whose code was erased cannot be sent again:
 * the caller must ask for a new code.
 */
export async function requeueMessage(
  db: Kysely<StoreDatabase>,
  channel: OutboxChannel,
  id: string,
  now: string,
): Promise<RequeueResult> {
  const table = TABLE[channel];
  const row = await db.selectFrom(table).select(['status']).where('id', '=', id).executeTakeFirst();
  if (row === undefined) return 'not_found';
  if (row.status !== 'dead' && row.status !== 'failed') return 'not_dead';
  if (channel === 'sms') {
    const message = await db.selectFrom('auth_code_messages').select(['code']).where('id', '=', id).executeTakeFirst();
    if (message?.code === null || message?.code === undefined) return 'code_erased';
  }
  const result = await db
    .updateTable(table)
    .set({ status: 'queued', attempts: 0, next_attempt_at: now, locked_until: null, updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', ['dead', 'failed'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1 ? 'requeued' : 'not_dead';
}

export type CancelResult = 'cancelled' | 'not_found' | 'claimed';

/**
 * Removes a push notification that no worker has claimed yet (queued, never
 * tried: one held through quiet hours or scheduled for later). One statement,
 * so that a claim and a cancel cannot both win: once a worker has claimed it
 * (or it was tried, sent or given up), the cancel is refused.
 */
export async function cancelPushNotification(db: Kysely<StoreDatabase>, id: string): Promise<CancelResult> {
  const result = await db
    .deleteFrom('push_notifications')
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .where('attempts', '=', 0)
    .where('locked_until', 'is', null)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 1) return 'cancelled';
  const row = await db.selectFrom('push_notifications').select('id').where('id', '=', id).executeTakeFirst();
  return row === undefined ? 'not_found' : 'claimed';
}

/** Re-queues every dead message of a channel that can still be sent (only those whose last error is `lastError`, when given); returns how many. */
export async function requeueDeadMessages(
  db: Kysely<StoreDatabase>,
  channel: OutboxChannel,
  now: string,
  lastError?: string,
): Promise<number> {
  const dead = db
    .updateTable(TABLE[channel])
    .set({ status: 'queued', attempts: 0, next_attempt_at: now, locked_until: null, updated_at: now })
    .where('status', '=', 'dead');
  const base = lastError === undefined ? dead : dead.where('last_error', '=', lastError);
  const result = await (channel === 'sms' ? base.where('code', 'is not', null) : base).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function outboxStats(db: Kysely<StoreDatabase>, channel: OutboxChannel): Promise<OutboxChannelStats> {
  const table = TABLE[channel];
  const rows = await db
    .selectFrom(table)
    .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute();
  const counts: Record<OutboxStatus, number> = { queued: 0, sending: 0, sent: 0, failed: 0, dead: 0, uncertain: 0 };
  for (const row of rows) counts[row.status] = Number(row.n);
  const oldest = await db
    .selectFrom(table)
    .select((eb) => eb.fn.min<string>('created_at').as('oldest'))
    .where('status', 'in', PENDING)
    .executeTakeFirst();
  return { channel, counts, oldestPendingAt: oldest?.oldest ?? null };
}

// Finished messages: retention may delete them.
const FINISHED: OutboxStatus[] = ['sent', 'dead', 'uncertain'];

/** The ids of up to `batch` finished messages last changed before `before`: what the prune deletes, read through the settled index of migration 0020. */
export function finishedBefore(db: Kysely<StoreDatabase>, channel: OutboxChannel, before: string, batch: number) {
  const table = TABLE[channel];
  return db
    .selectFrom(table)
    .select('id')
    .where(SETTLED)
    .where('status', 'in', FINISHED)
    .where('updated_at', '<', before)
    .limit(batch);
}

/**
 * Deletes the messages of a channel that are finished (sent, dead or
 * uncertain) and were last changed before `before`, in batches that hold a
 * SQLite writer's one lock only briefly (deleteInBatches); returns how many.
 * Pending messages are never touched, however old.
 */
export async function pruneFinishedMessages(
  db: Kysely<StoreDatabase>,
  channel: OutboxChannel,
  before: string,
  signal?: AbortSignal,
  batch = PRUNE_BATCH,
): Promise<number> {
  const table = TABLE[channel];
  return deleteInBatches(
    async () => {
      const deleted = await db
        .deleteFrom(table)
        .where('id', 'in', finishedBefore(db, channel, before, batch))
        // Again on the rows themselves: on PostgreSQL a row re-queued while this
        // statement waited for its lock is re-checked against these, not against
        // the list the subquery made before.
        .where('status', 'in', FINISHED)
        .where('updated_at', '<', before)
        .returning('id')
        .execute();
      // The messages' attempt histories go with them (migration 0008).
      if (deleted.length > 0)
        await db
          .deleteFrom('outbox_attempts')
          .where('channel', '=', channel)
          .where(
            'message_id',
            'in',
            deleted.map((row) => row.id),
          )
          .execute();
      return { numDeletedRows: BigInt(deleted.length) };
    },
    batch,
    signal,
  );
}
