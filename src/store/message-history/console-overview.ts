// What the console's overview reads (docs/console.md#overview): the outbox's
// depth per channel (outbox-admin.ts), the oldest due message, the messages
// queued per minute, hour or day and where those stand now, the most
// frequent errors, and the delivery workers' heartbeats.
import { sql, type Kysely } from 'kysely';
import { OUTBOX_CHANNELS, type OutboxChannel } from '../../shared/outbox-channel';
import type { StoreDatabase } from '../database';
import { channelTable } from '../outbox/channel-table';

export interface ActivityBucket {
  /** The bucket's start: `YYYY-MM-DDTHH:MM` for minutes, `YYYY-MM-DDTHH` for hours, `YYYY-MM-DD` for days (UTC). */
  readonly bucket: string;
  /** Every message queued in the bucket, refused calls included: what Messages lists for its times. */
  readonly total: number;
  /** Of those, sent. */
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
 * The messages queued per bucket since `since`, and where those stand now: sent, retrying or given up. Each
 * message is counted by the time it was queued, as Messages filters it, so that a bucket's link there lists
 * exactly the messages it counts (docs/design.md#a-chart-period-is-a-link). `width` is the length of the ISO
 * prefix that names a bucket: 16 for minutes, 13 for hours, 10 for days.
 */
export async function activity(
  db: Kysely<StoreDatabase>,
  since: string,
  width: ActivityWidth,
): Promise<ActivityBucket[]> {
  const totals = new Map<string, { total: number; sent: number; retrying: number; dead: number }>();
  const add = (bucket: string, status: string, n: number) => {
    const entry = totals.get(bucket) ?? { total: 0, sent: 0, retrying: 0, dead: 0 };
    entry.total += n;
    if (status === 'sent') entry.sent += n;
    else if (status === 'failed') entry.retrying += n;
    else if (status === 'dead' || status === 'uncertain') entry.dead += n;
    totals.set(bucket, entry);
  };
  for (const query of activityQueries(db, since, width)) {
    for (const row of await query.execute()) add(row.bucket, row.status, Number(row.n));
  }
  return [...totals.entries()]
    .map(([key, counts]) => ({ bucket: key, ...counts }))
    .sort((a, b) => (a.bucket < b.bucket ? -1 : 1));
}

/**
 * activity's reads, one a table: the messages of each channel by bucket and status, the refused calls by
 * bucket. Each reads the table's index that starts with `created_at` from `since` on
 * (test/store/console-overview.test.ts reads their plans).
 */
export function activityQueries(db: Kysely<StoreDatabase>, since: string, width: ActivityWidth) {
  // A literal, not a parameter: PostgreSQL matches the grouped expression by its text.
  const size = sql.raw(String(width === 10 ? 10 : width === 13 ? 13 : 16));
  const bucket = sql<string>`substr(created_at, 1, ${size})`;
  const outbox = OUTBOX_CHANNELS.map((channel) => {
    const { db: typed, table: name } = channelTable(db, channel);
    return typed
      .selectFrom(name)
      .select([bucket.as('bucket'), 'status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('created_at', '>=', since)
      .groupBy([sql`substr(created_at, 1, ${size})`, 'status']);
  });
  const refused = db
    .selectFrom('refused_calls')
    .select([bucket.as('bucket'), sql<string>`'refused'`.as('status'), (eb) => eb.fn.countAll<number>().as('n')])
    .where('created_at', '>=', since)
    .groupBy(sql`substr(created_at, 1, ${size})`);
  return [...outbox, refused];
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
