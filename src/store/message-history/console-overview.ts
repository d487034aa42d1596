// What the console's overview reads (docs/console.md#overview): the outbox's
// depth per channel (outbox-admin.ts), the oldest due message, the messages
// sent and failed per minute or hour, the most frequent errors, and the
// delivery workers' heartbeats.
import { sql, type Kysely } from 'kysely';
import { OUTBOX_CHANNELS, type OutboxChannel } from '../../shared/outbox-channel';
import type { StoreDatabase } from '../database';
import { channelTable } from '../outbox/channel-table';
import { SETTLED } from '../outbox/settled';

export interface ActivityBucket {
  /** The bucket's start: `YYYY-MM-DDTHH:MM` for minutes, `YYYY-MM-DDTHH` for hours, `YYYY-MM-DD` for days (UTC). */
  readonly bucket: string;
  readonly sent: number;
  /** Failed and to be tried again (status `failed`). */
  readonly retrying: number;
  /** Given up: dead, or uncertain (not sent again to avoid a duplicate). */
  readonly dead: number;
}

/** The length of the ISO prefix that names a bucket: days, hours, minutes. */
export type ActivityWidth = 10 | 13 | 16;

export interface ErrorCount {
  readonly channel: OutboxChannel;
  readonly error: string;
  readonly count: number;
}

/**
 * Sent, retrying and given-up messages per bucket since `since`: sent by
 * their sent time, the others by their last change. `width` is the length of
 * the ISO prefix that names a bucket: 16 for minutes, 13 for hours, 10 for days.
 */
export async function activity(
  db: Kysely<StoreDatabase>,
  since: string,
  width: ActivityWidth,
): Promise<ActivityBucket[]> {
  const totals = new Map<string, { sent: number; retrying: number; dead: number }>();
  const add = (bucket: string, field: 'sent' | 'retrying' | 'dead', n: number) => {
    const entry = totals.get(bucket) ?? { sent: 0, retrying: 0, dead: 0 };
    entry[field] += n;
    totals.set(bucket, entry);
  };
  // A literal, not a parameter: PostgreSQL matches the grouped expression by its text.
  const size = sql.raw(String(width === 10 ? 10 : width === 13 ? 13 : 16));
  for (const channel of OUTBOX_CHANNELS) {
    const { db: typed, table: name } = channelTable(db, channel);
    const sent = await typed
      .selectFrom(name)
      .select([sql<string>`substr(sent_at, 1, ${size})`.as('bucket'), (eb) => eb.fn.countAll<number>().as('n')])
      .where('status', '=', 'sent')
      .where('sent_at', '>=', since)
      .groupBy(sql`substr(sent_at, 1, ${size})`)
      .execute();
    for (const row of sent) add(row.bucket, 'sent', Number(row.n));
    const failed = await typed
      .selectFrom(name)
      .select([
        sql<string>`substr(updated_at, 1, ${size})`.as('bucket'),
        'status',
        (eb) => eb.fn.countAll<number>().as('n'),
      ])
      // Through the settled index (migration 0020), which needs its condition spelled out.
      .where(SETTLED)
      .where('status', 'in', ['failed', 'dead', 'uncertain'])
      .where('updated_at', '>=', since)
      .groupBy([sql`substr(updated_at, 1, ${size})`, 'status'])
      .execute();
    for (const row of failed) add(row.bucket, row.status === 'failed' ? 'retrying' : 'dead', Number(row.n));
  }
  return [...totals.entries()]
    .map(([bucket, counts]) => ({ bucket, ...counts }))
    .sort((a, b) => (a.bucket < b.bucket ? -1 : 1));
}

/** The most frequent last errors of messages changed since `since`, most frequent first. */
export async function frequentErrors(db: Kysely<StoreDatabase>, since: string, limit: number): Promise<ErrorCount[]> {
  const all: ErrorCount[] = [];
  for (const channel of OUTBOX_CHANNELS) {
    const { db: typed, table } = channelTable(db, channel);
    const rows = await typed
      .selectFrom(table)
      .select(['last_error', (eb) => eb.fn.countAll<number>().as('n')])
      .where('last_error', 'is not', null)
      .where('updated_at', '>=', since)
      .groupBy('last_error')
      .orderBy(sql`count(*)`, 'desc')
      .limit(limit)
      .execute();
    for (const row of rows) all.push({ channel, error: row.last_error ?? '', count: Number(row.n) });
  }
  return all.sort((a, b) => b.count - a.count).slice(0, limit);
}
