// The console's list of messages of both channels (docs/console.md#messages),
// newest first, paged by its key (created_at, id) rather than by an offset,
// so that the 400th page costs what the first does.
//
// The list is the merge of a few sources, each one table under one filter
// that an index of migrations 0010, 0015 or 0018 (the type) serves, every one of them ending in
// (created_at, id): a channel unfiltered is one source per table, and a
// found text one per thing it may be (a message id, a student id, the last
// digits of a phone). Each source reads at most a page and one row past the
// cursor, in the index's order; the merge keeps the newest page of them all.
// The other filters of a source are checked on the rows its index yields.
// test/store/message-list.test.ts pins each source's plan on both stores;
// docs/benchmark.md#the-list-of-messages has the figures at 1,000,000.
import { sql, type RawBuilder } from 'kysely';
import type { StoreCore } from '../core';
import type { OutboxStatus } from '../database';

export type MessageChannel = 'push' | 'sms';

/** A message's status, or `refused`: a call refused before anything was queued (migration 0015). */
export type MessageListStatus = OutboxStatus | 'refused';

/** How many of a phone's last digits the store keeps searchable (migration 0010). */
export const PHONE_SUFFIX_DIGITS = 4;

export interface MessageListFilter {
  readonly status: MessageListStatus | null;
  readonly channel: MessageChannel | null;
  /** Push only: a filter by school or type leaves the text messages out. */
  readonly school: string | null;
  readonly type: string | null;
  /** Queued at or after (an ISO time). */
  readonly from: string | null;
  /** Queued before (an ISO time). */
  readonly until: string | null;
  /** A message id, a student id, or the last digits of a phone (at least PHONE_SUFFIX_DIGITS). */
  readonly find: string | null;
  /** The last error, exactly (the overview's frequent errors link with it). */
  readonly error: string | null;
}

/** A row's place in the order: the key of the next page's seek. */
export interface MessageCursor {
  readonly createdAt: string;
  readonly id: string;
}

export interface MessageListItem {
  readonly channel: MessageChannel;
  readonly id: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly sentAt: string | null;
  readonly status: MessageListStatus;
  readonly attempts: number;
  /** For a refused call, the reason (`no_token`, `auth_code_limit_phone`, …). */
  readonly lastError: string | null;
  /** Push only. */
  readonly studentId: string | null;
  readonly schoolKey: string | null;
  readonly type: string | null;
  /** Text messages only, in full (masked already for a refused call): the console masks it before it is shown. */
  readonly phone: string | null;
}

export interface MessageListPage {
  readonly items: MessageListItem[];
  /** The cursor of the page after this one (older), when there is one. */
  readonly older: MessageCursor | null;
  /** The cursor of the page before this one (newer), when there is one. */
  readonly newer: MessageCursor | null;
}

export interface MessagePageRequest {
  readonly limit: number;
  /** Rows older than this (the next page); without either, the newest page. */
  readonly before?: MessageCursor;
  /** Rows newer than this (the previous page). */
  readonly after?: MessageCursor;
}

const TABLE = { push: 'push_notifications', sms: 'auth_code_messages' } as const;

interface Source {
  readonly channel: MessageChannel;
  /** The refused calls of the channel rather than its messages. */
  readonly refused: boolean;
  readonly conditions: RawBuilder<unknown>[];
}

/** The digits of a text that may be the end of a phone number (`…4567`, `+963 944 123 459`), else null. */
export function phoneDigits(text: string): string | null {
  if (!/^\+?[\d\s().-]+$/.test(text)) return null;
  const digits = text.replace(/\D/g, '');
  return digits.length >= PHONE_SUFFIX_DIGITS ? digits : null;
}

function sourcesFor(filter: MessageListFilter): Source[] {
  const channels: MessageChannel[] = filter.channel !== null ? [filter.channel] : ['push', 'sms'];
  // The refused calls are listed with every status, or alone with `refused`; an error filter is a message's.
  const kinds: boolean[] =
    filter.status === 'refused' ? [true] : filter.status === null && filter.error === null ? [false, true] : [false];
  const sources: Source[] = [];
  for (const refused of kinds) {
    for (const channel of channels) {
      if (channel === 'sms' && (filter.school !== null || filter.type !== null)) continue;
      const common: RawBuilder<unknown>[] = [];
      if (refused) common.push(sql`channel = ${channel}`);
      else if (filter.status !== null) common.push(sql`status = ${filter.status}`);
      if (filter.school !== null) common.push(sql`school_key = ${filter.school}`);
      if (filter.type !== null) common.push(sql`type = ${filter.type}`);
      if (filter.from !== null) common.push(sql`created_at >= ${filter.from}`);
      if (filter.until !== null) common.push(sql`created_at < ${filter.until}`);
      if (filter.error !== null)
        common.push(refused ? sql`reason = ${filter.error}` : sql`last_error = ${filter.error}`);
      if (filter.find === null) {
        sources.push({ channel, refused, conditions: common });
        continue;
      }
      const find = filter.find;
      sources.push({ channel, refused, conditions: [...common, sql`id = ${find}`] });
      if (channel === 'push') sources.push({ channel, refused, conditions: [...common, sql`student_id = ${find}`] });
      const digits = phoneDigits(find);
      if (channel === 'sms' && digits !== null) {
        const suffix = digits.slice(-PHONE_SUFFIX_DIGITS);
        // More digits than the suffix: the rest are compared on the rows the suffix found (a refused call
        // keeps its phone masked, so only the suffix can be compared there).
        const longer = digits.length > PHONE_SUFFIX_DIGITS && !refused ? [sql`phone like ${`%${digits}`}`] : [];
        sources.push({ channel, refused, conditions: [...common, sql`phone_suffix = ${suffix}`, ...longer] });
      }
    }
  }
  return sources;
}

export interface MessageRow {
  id: string;
  created_at: string;
  updated_at: string;
  sent_at: string | null;
  status: MessageListStatus;
  attempts: number | string;
  last_error: string | null;
  student_id?: string | null;
  school_key?: string | null;
  type?: string;
  phone?: string;
}

/** Newest first: by time queued, then by id, both descending. */
const newerFirst = (a: MessageListItem, b: MessageListItem): number =>
  a.createdAt !== b.createdAt
    ? a.createdAt < b.createdAt
      ? 1
      : -1
    : a.id !== b.id
      ? a.id < b.id
        ? 1
        : -1
      : a.channel.localeCompare(b.channel);

/** One statement per source: its filters, the cursor's seek, and a page and one row in the key's order. */
export function messageListQueries(
  filter: MessageListFilter,
  page: MessagePageRequest,
): { channel: MessageChannel; refused: boolean; query: RawBuilder<MessageRow> }[] {
  const backwards = page.after !== undefined;
  const cursor = page.after ?? page.before ?? null;
  const direction = sql.raw(backwards ? 'asc' : 'desc');
  return sourcesFor(filter).map((source) => {
    const where = [...source.conditions];
    if (cursor !== null) {
      where.push(
        backwards
          ? sql`(created_at, id) > (${cursor.createdAt}, ${cursor.id})`
          : sql`(created_at, id) < (${cursor.createdAt}, ${cursor.id})`,
      );
    }
    const columns = source.refused
      ? sql.raw(
          "id, created_at, created_at as updated_at, null as sent_at, 'refused' as status, 0 as attempts, reason as last_error, student_id, school_key, type, phone",
        )
      : source.channel === 'push'
        ? sql.raw('id, created_at, updated_at, sent_at, status, attempts, last_error, student_id, school_key, type')
        : sql.raw('id, created_at, updated_at, sent_at, status, attempts, last_error, phone');
    const table = source.refused ? 'refused_calls' : TABLE[source.channel];
    const query = sql<MessageRow>`select ${columns} from ${sql.table(table)}
      ${where.length === 0 ? sql`` : sql`where ${sql.join(where, sql` and `)}`}
      order by created_at ${direction}, id ${direction} limit ${page.limit + 1}`;
    return { channel: source.channel, refused: source.refused, query };
  });
}

export async function listMessages(
  core: Pick<StoreCore, 'db'>,
  filter: MessageListFilter,
  page: MessagePageRequest,
): Promise<MessageListPage> {
  const backwards = page.after !== undefined;
  const cursor = page.after ?? page.before ?? null;
  const found = await Promise.all(
    messageListQueries(filter, page).map(async ({ channel, query }) => {
      const rows = await query.execute(core.db);
      return rows.rows.map((row): MessageListItem => ({
        channel,
        id: row.id,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        sentAt: row.sent_at,
        status: row.status,
        attempts: Number(row.attempts),
        lastError: row.last_error,
        studentId: row.student_id ?? null,
        schoolKey: row.school_key ?? null,
        type: row.type ?? null,
        phone: row.phone ?? null,
      }));
    }),
  );
  // One row may come from two sources (a message id that is also a student's): kept once.
  const merged = new Map<string, MessageListItem>();
  for (const item of found.flat()) merged.set(`${item.channel}:${item.id}`, item);
  const ordered = [...merged.values()].sort(newerFirst);
  if (backwards) ordered.reverse();
  const more = ordered.length > page.limit;
  const kept = ordered.slice(0, page.limit);
  if (backwards) kept.reverse();
  const first = kept[0];
  const last = kept[kept.length - 1];
  const at = (item: MessageListItem | undefined): MessageCursor | null =>
    item === undefined ? null : { createdAt: item.createdAt, id: item.id };
  return {
    items: kept,
    older: backwards ? at(last) : more ? at(last) : null,
    newer: backwards ? (more ? at(first) : null) : cursor === null ? null : at(first),
  };
}
