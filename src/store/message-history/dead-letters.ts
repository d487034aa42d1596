// The dead letters page (docs/console.md#dead-letters): dead messages of a
// channel, the latest given up first, a page at a time by their key (the
// time they died and their id, read through the (status, updated_at) index
// of migration 0003), optionally those with some last errors only, and the
// errors they died of with their counts. A dismissed message (migration
// 0014) is kept and left out, unless the dismissed ones are asked for; it
// counts as dismissed while it has not changed since (a resend that dies
// again shows it again).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { OutboxChannel } from '../../shared/outbox-channel';
import type { StoreDatabase } from '../database';
import { SETTLED } from '../outbox/settled';

export interface DeadMessage {
  readonly id: string;
  /** Push only. */
  readonly studentId: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly attempts: number;
  readonly lastError: string | null;
  /** When it was dismissed; null when it is not. */
  readonly dismissedAt: string | null;
  /** A login code erased (it cannot be resent); false for a push notification. */
  readonly erased: boolean;
}

/** A dead message's place in the order: when it died, and its id. */
export interface DeadCursor {
  readonly updatedAt: string;
  readonly id: string;
}

export interface DeadFilter {
  /** Only messages whose last error is one of these; null: any. */
  readonly errors: readonly string[] | null;
  /** The dismissed ones instead of the others. */
  readonly dismissed: boolean;
}

export interface DeadPageRequest {
  readonly limit: number;
  readonly before?: DeadCursor;
  readonly after?: DeadCursor;
}

export interface DeadPage {
  readonly items: DeadMessage[];
  /** Every dead message the filter matches, all pages. */
  readonly total: number;
  readonly older: DeadCursor | null;
  readonly newer: DeadCursor | null;
}

const TABLE = { push: 'push_notifications', sms: 'auth_code_messages' } as const;

/** The most distinct errors the filters and groups read: past it, the rarest are left out of the groups. */
export const DEAD_ERRORS_READ = 500;

const isDismissed = sql`(dismissed_at is not null and dismissed_at >= updated_at)`;

function conditions(filter: DeadFilter): RawBuilder<unknown>[] {
  // SETTLED: newest first through the settled index (migration 0020), which needs its condition spelled out.
  const where: RawBuilder<unknown>[] = [
    sql`status = 'dead'`,
    SETTLED,
    filter.dismissed ? isDismissed : sql`not ${isDismissed}`,
  ];
  if (filter.errors !== null) {
    where.push(
      filter.errors.length === 0
        ? sql`1 = 0`
        : sql`last_error in (${sql.join(filter.errors.slice(0, DEAD_ERRORS_READ).map((e) => sql`${e}`))})`,
    );
  }
  return where;
}

interface DeadRow {
  id: string;
  student_id?: string;
  code?: string | null;
  created_at: string;
  updated_at: string;
  attempts: number | string;
  last_error: string | null;
  dismissed_at: string | null;
}

export async function listDead(
  db: Kysely<StoreDatabase>,
  channel: OutboxChannel,
  filter: DeadFilter,
  page: DeadPageRequest,
): Promise<DeadPage> {
  const table = sql.table(TABLE[channel]);
  const where = conditions(filter);
  const counted = await sql<{
    n: number | string;
  }>`select count(*) as n from ${table} where ${sql.join(where, sql` and `)}`.execute(db);
  const backwards = page.after !== undefined;
  const cursor = page.after ?? page.before ?? null;
  const seek = [...where];
  if (cursor !== null) {
    seek.push(
      backwards
        ? sql`(updated_at, id) > (${cursor.updatedAt}, ${cursor.id})`
        : sql`(updated_at, id) < (${cursor.updatedAt}, ${cursor.id})`,
    );
  }
  const direction = sql.raw(backwards ? 'asc' : 'desc');
  // student_id is the push table's only; code the login codes' (null once erased).
  const columns = sql.raw(
    `id, created_at, updated_at, attempts, last_error, dismissed_at, ${channel === 'push' ? 'student_id' : 'code'}`,
  );
  const rows = await sql<DeadRow>`select ${columns} from ${table} where ${sql.join(seek, sql` and `)}
    order by updated_at ${direction}, id ${direction} limit ${page.limit + 1}`.execute(db);
  const ordered = rows.rows.slice(0, page.limit);
  const more = rows.rows.length > page.limit;
  if (backwards) ordered.reverse();
  const items = ordered.map((row): DeadMessage => ({
    id: row.id,
    studentId: row.student_id ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    attempts: Number(row.attempts),
    lastError: row.last_error,
    dismissedAt: row.dismissed_at !== null && row.dismissed_at >= row.updated_at ? row.dismissed_at : null,
    erased: channel === 'sms' && (row.code ?? null) === null,
  }));
  const at = (item: DeadMessage | undefined): DeadCursor | null =>
    item === undefined ? null : { updatedAt: item.updatedAt, id: item.id };
  const first = items[0];
  const last = items[items.length - 1];
  return {
    items,
    total: Number(counted.rows[0]?.n ?? 0),
    older: backwards ? at(last) : more ? at(last) : null,
    newer: backwards ? (more ? at(first) : null) : cursor === null ? null : at(first),
  };
}

/** The last errors of a channel's dead messages (dismissed or not, as asked), most frequent first. */
export async function deadErrors(
  db: Kysely<StoreDatabase>,
  channel: OutboxChannel,
  limit: number,
  dismissed = false,
): Promise<{ error: string; count: number }[]> {
  const where = [...conditions({ errors: null, dismissed }), sql`last_error is not null`];
  const rows = await sql<{ last_error: string; n: number | string }>`select last_error, count(*) as n
    from ${sql.table(TABLE[channel])} where ${sql.join(where, sql` and `)}
    group by last_error order by count(*) desc, last_error limit ${Math.min(limit, DEAD_ERRORS_READ)}`.execute(db);
  return rows.rows.map((row) => ({ error: row.last_error, count: Number(row.n) }));
}

/** Dismisses a dead message: kept, out of the list until it changes. False: no dead message with that id. */
export async function dismissDead(
  db: Kysely<StoreDatabase>,
  channel: OutboxChannel,
  id: string,
  now: string,
): Promise<boolean> {
  // Never before the message's own last change, whatever the clocks of two nodes say.
  const result = await sql`update ${sql.table(TABLE[channel])}
    set dismissed_at = case when updated_at > ${now} then updated_at else ${now} end
    where id = ${id} and status = 'dead'`.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}

/**
 * Puts back in the queue the dead messages of a channel whose last error is
 * one of `errors` (all of them for null), the dismissed ones left out, as the
 * admin API's requeue does (attempts from zero, due now); login codes already
 * erased stay dead. Returns how many.
 */
export async function requeueDead(
  db: Kysely<StoreDatabase>,
  channel: OutboxChannel,
  errors: readonly string[] | null,
  now: string,
): Promise<number> {
  const where = conditions({ errors, dismissed: false });
  if (channel === 'sms') where.push(sql`code is not null`);
  const result = await sql`update ${sql.table(TABLE[channel])}
    set status = 'queued', attempts = 0, next_attempt_at = ${now}, locked_until = null, updated_at = ${now}
    where ${sql.join(where, sql` and `)}`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
