// The dead letters page (docs/console.md#dead-letters): dead messages of a
// channel, newest change first, optionally those with one last error, and
// the errors they died of with their counts.
import type { Kysely } from 'kysely';
import type { OutboxChannel } from '../../shared/outbox-channel';
import type { StoreDatabase } from '../database';
import { channelTable } from '../outbox/channel-table';

export interface DeadMessage {
  readonly id: string;
  /** Push only. */
  readonly studentId: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly attempts: number;
  readonly lastError: string | null;
}

export interface DeadPage {
  readonly items: DeadMessage[];
  readonly total: number;
}

export async function listDead(
  db: Kysely<StoreDatabase>,
  channel: OutboxChannel,
  lastError: string | null,
  page: { limit: number; offset: number },
): Promise<DeadPage> {
  const { db: typed, table } = channelTable(db, channel);
  // student_id is the push table's only; it is asked for only of push messages.
  let base = typed.selectFrom(table).where('status', '=', 'dead');
  if (lastError !== null) base = base.where('last_error', '=', lastError);
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  const rows = await base
    .select(['id', 'created_at', 'updated_at', 'attempts', 'last_error'])
    .$if(channel === 'push', (q) => q.select('student_id'))
    .orderBy('updated_at', 'desc')
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return {
    total: Number(total?.n ?? 0),
    items: rows.map((row) => ({
      id: row.id,
      studentId: (row as { student_id?: string }).student_id ?? null,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      attempts: Number(row.attempts),
      lastError: row.last_error,
    })),
  };
}

/** The last errors of a channel's dead messages, most frequent first. */
export async function deadErrors(
  db: Kysely<StoreDatabase>,
  channel: OutboxChannel,
  limit: number,
): Promise<{ error: string; count: number }[]> {
  const { db: typed, table } = channelTable(db, channel);
  const rows = await typed
    .selectFrom(table)
    .select(['last_error', (eb) => eb.fn.countAll<number>().as('n')])
    .where('status', '=', 'dead')
    .where('last_error', 'is not', null)
    .groupBy('last_error')
    .orderBy((eb) => eb.fn.countAll(), 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ error: row.last_error ?? '', count: Number(row.n) }));
}
