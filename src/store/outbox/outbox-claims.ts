// The delivery worker's side of the outbox: claim due messages under a lease,
// record how each attempt ended, and forget a push token the provider says is
// dead. Operators' re-queueing lives in outbox-admin.ts.
//
// A claim sets status `sending`, a fresh claim token, `locked_until` and
// `next_attempt_at` to the end of the lease, and counts the attempt. So "due"
// is one condition for every state: a queued or failed row whose time has
// come, and a sending row whose worker vanished (its lease ended) are both
// `next_attempt_at <= now`.
//
// One exception, for login codes: a sending row whose attempt had been handed
// to a gateway that cannot drop a repeat (`send_started_at`, written just
// before the call) is never claimed again. When its lease ends the next SMS
// claim records it `uncertain` instead (docs/delivery.md#sent-once).
import { sql, type Kysely, type Selectable } from 'kysely';
import type { AuthCodeMessagesTable, DevicePlatform, PushNotificationsTable, StoreDatabase } from '../database';
import { OUTBOX_CHANNELS, OUTBOX_TABLE, type OutboxChannel, type OutboxTable } from '../../shared/outbox-channel';
import type { StoreDialect } from '../migrations';
import { channelTable } from './channel-table';
import { parseResolvedOptions, type ResolvedOptions } from '../../domain/message-options';
import { parseData } from './outbox';
import { prepareQuery } from '../connection/prepared';

export interface ClaimedMessage {
  readonly id: string;
  /** Proof of this claim; completing the attempt needs it. */
  readonly claimToken: string;
  /** Attempts including this one. Above the maximum: earlier attempts were started and never finished. */
  readonly attempts: number;
  readonly createdAt: string;
  /** The W3C traceparent of the span that queued it, for the send span's link; null if queued untraced. */
  readonly traceparent: string | null;
}

export interface ClaimedPushNotification extends ClaimedMessage {
  readonly deviceId: string;
  /** The device's token now (it may have changed since the message was queued); null when it has none. */
  readonly pushToken: string | null;
  readonly platform: DevicePlatform | null;
  readonly studentId: string;
  /** The student's school when it was queued; null for a student unknown then (its FCM project: the default). */
  readonly schoolKey: string | null;
  readonly type: string;
  readonly title: string;
  readonly body: string;
  readonly data: Readonly<Record<string, string>>;
  /** How it travels on each platform, and until when it is worth sending (migration 0013); null: as before there were options. */
  readonly options: ResolvedOptions | null;
}

export interface ClaimedAuthCodeMessage extends ClaimedMessage {
  readonly phone: string;
  /** Null only if the row was edited by hand: codes are erased when a message is sent or dead. */
  readonly code: string | null;
}

/** How an attempt ended. `failed` is retried at `retryAt`; `sent` and `dead` are final. */
export type DeliveryCompletion =
  | { readonly status: 'sent'; readonly providerMessageId: string | null }
  | { readonly status: 'failed'; readonly retryAt: string; readonly error: string }
  | { readonly status: 'dead'; readonly error: string }
  // The provider may have accepted it; not sent again (docs/delivery.md#sent-once).
  | { readonly status: 'uncertain'; readonly error: string };

/** One attempt's result, for the outbox role's completeDeliveries (outbox-role.ts). */
export interface DeliveryCompletionEntry {
  readonly channel: OutboxChannel;
  readonly id: string;
  readonly claimToken: string;
  readonly completion: DeliveryCompletion;
  /** The provider's answer code of a failed attempt (`UNREGISTERED`, `http_503`), for the attempt history; null or left out when none. */
  readonly code?: string | null;
  /** The provider said the push token is gone (a `device.unregistered` event for the school); false when left out. */
  readonly tokenGone?: boolean;
}

export interface ClaimRequest {
  readonly limit: number;
  readonly now: string;
  readonly leaseUntil: string;
  readonly claimToken: string;
}

// Spelled exactly as the partial index of migration 0002 so that SQLite uses it.
const DUE_STATUS = sql<boolean>`status in ('queued', 'failed', 'sending')`;
// A login code whose attempt reached the gateway is not due again, whatever its lease.
const NOT_STARTED = sql<boolean>`(status <> 'sending' or send_started_at is null)`;

/** A claim's values, or the markers of a statement compiled once (pushClaimStatements), its limit's too. */
type ClaimValues = { readonly [K in keyof ClaimRequest]: ClaimRequest[K] | string };

/** The claim of up to `limit` due rows of one channel, as an UPDATE … RETURNING. */
function claimStatement(
  db: Kysely<StoreDatabase>,
  dialect: StoreDialect,
  channel: OutboxChannel,
  request: ClaimValues,
) {
  const { db: typed, table: name } = channelTable(db, channel);
  const table = OUTBOX_TABLE[channel];
  const notStarted = channel === 'sms' ? sql<boolean>`${NOT_STARTED}` : sql<boolean>`true`;
  const due =
    dialect === 'postgres'
      ? typed
          .selectFrom(name)
          .select('id')
          .where(DUE_STATUS)
          .where(notStarted)
          .where('next_attempt_at', '<=', request.now)
          .orderBy('next_attempt_at')
          .limit(sql<number>`${request.limit}`)
          .forUpdate()
          .skipLocked()
      : // Without statistics SQLite would rather take another index and sort
        // every due row on each claim, which grows with the backlog; the
        // partial index is already in due order.
        sql<string>`(select id from ${sql.table(table)} indexed by ${sql.id(`${table}_due_idx`)} where ${DUE_STATUS} and ${notStarted} and next_attempt_at <= ${request.now} order by next_attempt_at limit ${request.limit})`;
  return typed
    .updateTable(name)
    .set((eb) => ({
      status: 'sending',
      claim_token: request.claimToken,
      locked_until: request.leaseUntil,
      next_attempt_at: request.leaseUntil,
      attempts: eb('attempts', '+', 1),
      updated_at: request.now,
      // A new attempt: nothing of it has reached a gateway yet. (The column is
      // the SMS table's only; the typed spelling above is the push table's.)
      ...(channel === 'sms' ? { send_started_at: null } : {}),
    }))
    .where('id', 'in', due)
    .returningAll();
}

/**
 * Claims up to `limit` due rows of one channel, oldest due first. On PostgreSQL
 * rows another worker is claiming are skipped (FOR UPDATE SKIP LOCKED); on
 * SQLite the caller runs this in an immediate transaction, which serialises
 * claims across processes.
 */
async function claimRows<C extends OutboxChannel>(
  db: Kysely<StoreDatabase>,
  dialect: StoreDialect,
  channel: C,
  request: ClaimRequest,
): Promise<Selectable<StoreDatabase[OutboxTable<C>]>[]> {
  const rows = await claimStatement(db, dialect, channel, request).execute();
  // RETURNING keeps no order; deliver the longest-waiting first.
  rows.sort(byCreation);
  return channelTable(db, channel).rowsOf(rows);
}

function byCreation(a: { created_at: string; id: string }, b: { created_at: string; id: string }): number {
  return a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The push claim's statements, compiled once per store (connection/prepared.ts):
 * a busy worker claims every few milliseconds, often a handful of rows at a
 * time, and building and compiling the claim with Kysely cost more than
 * SQLite's work for such a claim (docs/delivery.md#cpu-per-push).
 */
export function pushClaimStatements(db: Kysely<StoreDatabase>, dialect: StoreDialect) {
  const names = ['limit', 'now', 'leaseUntil', 'claimToken'] as const;
  return {
    // PostgreSQL, one round trip: the claim and the devices' current tokens in one statement.
    claimWithDevices: prepareQuery(names, (p) =>
      db
        .with('claimed', () => claimStatement(db, dialect, 'push', p))
        .selectFrom('claimed')
        .leftJoin('devices', 'devices.id', 'claimed.device_id')
        .selectAll('claimed')
        .select([
          'devices.id as device_found',
          'devices.push_token as device_push_token',
          'devices.platform as device_platform',
        ]),
    ),
    // SQLite: the claim, then its devices.
    claim: prepareQuery(names, (p) => claimStatement(db, dialect, 'push', p)),
    // The ids as one JSON parameter: the same statement text whatever the claim's size.
    devices: prepareQuery(['ids'], (p) => ({
      compile: () =>
        sql<{ id: string; push_token: string | null; platform: DevicePlatform | null }>`
          select id, push_token, platform from devices where id in (select value from json_each(${p.ids}))`.compile(db),
    })),
  };
}

export type PushClaimStatements = ReturnType<typeof pushClaimStatements>;

export async function claimPushNotifications(
  db: Kysely<StoreDatabase>,
  dialect: StoreDialect,
  request: ClaimRequest,
  statements: PushClaimStatements = pushClaimStatements(db, dialect),
): Promise<ClaimedPushNotification[]> {
  if (dialect === 'postgres') {
    const { rows } = await db.executeQuery(statements.claimWithDevices(request));
    rows.sort(byCreation);
    return rows.map((row) =>
      toClaimedPush(
        row,
        row.device_found === null ? undefined : { push_token: row.device_push_token, platform: row.device_platform },
      ),
    );
  }
  const { rows } = await db.executeQuery(statements.claim(request));
  if (rows.length === 0) return [];
  // RETURNING keeps no order; deliver the longest-waiting first.
  rows.sort(byCreation);
  const deviceIds = [...new Set(rows.map((row) => row.device_id))];
  const { rows: devices } = await db.executeQuery(statements.devices({ ids: JSON.stringify(deviceIds) }));
  const byId = new Map(devices.map((device) => [device.id, device]));
  return rows.map((row) => toClaimedPush(row, byId.get(row.device_id)));
}

function claimedFields(row: {
  id: string;
  claim_token: string | null;
  attempts: number;
  created_at: string;
  traceparent: string | null;
}): ClaimedMessage {
  return {
    id: row.id,
    claimToken: row.claim_token ?? '',
    attempts: Number(row.attempts),
    createdAt: row.created_at,
    traceparent: row.traceparent,
  };
}

function toClaimedPush(
  row: Selectable<PushNotificationsTable>,
  device: { push_token: string | null; platform: DevicePlatform | null } | undefined,
): ClaimedPushNotification {
  return {
    ...claimedFields(row),
    deviceId: row.device_id,
    pushToken: device?.push_token ?? null,
    platform: device?.platform ?? null,
    studentId: row.student_id,
    schoolKey: row.school_key,
    type: row.type,
    title: row.title,
    body: row.body,
    data: parseData(row.data),
    options: claimedOptions(row.options),
  };
}

// A claimed push's options as parseResolvedOptions reads them, its two schema
// checks run once per distinct platforms' part rather than once a row: the
// lifetime differs from message to message, while the rest (a type's and a
// school's options) repeats, and the checks were the largest of the claim's
// own costs in the worker's profile (docs/delivery.md#cpu-per-push). The
// text is as the outbox writes it, `{"expiresAt":…,` first, an ISO time or
// null; any other shape is read whole.
const LIFETIME_FIRST = /^\{"expiresAt":(null|"[0-9T:.Z+-]*"),/;
const PLATFORMS_KEPT = 256;
const platformsByText = new Map<string, Omit<ResolvedOptions, 'expiresAt'> | null>();

export function claimedOptions(text: string | null): ResolvedOptions | null {
  const lifetime = text === null ? null : LIFETIME_FIRST.exec(text);
  if (text === null || lifetime === null || text.includes('"expiresAt"', lifetime[0].length))
    return parseResolvedOptions(text);
  const expiresAt = lifetime[1] === 'null' ? null : lifetime[1].slice(1, -1);
  // What parseResolvedOptions asks of the lifetime (a string Date.parse reads, or null).
  if (expiresAt !== null && Number.isNaN(Date.parse(expiresAt))) return null;
  const rest = text.slice(lifetime[0].length);
  let platforms = platformsByText.get(rest);
  if (platforms === undefined) {
    const whole = parseResolvedOptions(`{"expiresAt":null,${rest}`);
    // Shared by every message with the same options: frozen, so that none can change another's.
    platforms =
      whole === null
        ? null
        : Object.freeze({
            android: Object.freeze(whole.android),
            apns: Object.freeze(whole.apns),
            webpush: Object.freeze(whole.webpush),
          });
    if (platformsByText.size >= PLATFORMS_KEPT) platformsByText.clear();
    platformsByText.set(rest, platforms);
  }
  return platforms === null ? null : { expiresAt, ...platforms };
}

export async function claimAuthCodeMessages(
  db: Kysely<StoreDatabase>,
  dialect: StoreDialect,
  request: ClaimRequest,
): Promise<ClaimedAuthCodeMessage[]> {
  const rows = await claimRows(db, dialect, 'sms', request);
  return rows.map((row: Selectable<AuthCodeMessagesTable>) => ({
    ...claimedFields(row),
    phone: row.phone,
    code: row.code,
  }));
}

/** The last error of a login code whose worker stopped after handing it to the gateway. */
export const INTERRUPTED_SEND_ERROR =
  'worker_stopped: its worker stopped after handing it to the gateway (it may have been accepted; not sent again)';

/**
 * Records `uncertain` every login code whose attempt was handed to a gateway
 * that cannot drop a repeat (`send_started_at`) and whose lease has ended
 * (its worker stopped mid-send: kill -9, a crash, a lost host), erasing its
 * code as any final state does, with the attempt in the history. Returns
 * their ids. Run with the SMS claim, which skips such rows.
 */
export async function settleInterruptedSends(
  db: Kysely<StoreDatabase>,
  dialect: StoreDialect,
  now: string,
): Promise<string[]> {
  const rows = await db
    .updateTable('auth_code_messages')
    .set({ status: 'uncertain', code: null, locked_until: null, updated_at: now, last_error: INTERRUPTED_SEND_ERROR })
    .where('status', '=', 'sending')
    .where('send_started_at', 'is not', null)
    .where('next_attempt_at', '<=', now)
    .returning('id')
    .execute();
  const ids = rows.map((row) => row.id);
  await recordAttempts(
    db,
    dialect,
    'sms',
    ids.map((id) => ({ id, code: 'worker_stopped' })),
    now,
  );
  return ids;
}

/**
 * Notes that this claim's attempt is being handed to the gateway now, before
 * the call; false when the claim is no longer current or its lease has run
 * out (then nothing may be sent: another worker may claim it any moment).
 */
export async function markSendStarted(
  db: Kysely<StoreDatabase>,
  id: string,
  claimToken: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('auth_code_messages')
    .set({ send_started_at: now, updated_at: now })
    .where('id', '=', id)
    .where('claim_token', '=', claimToken)
    .where('status', '=', 'sending')
    .where('locked_until', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * When the longest-waiting due message of the channels (both unless told) came due (queued or
 * failed and its time has come, or sending with its lease run out); null
 * when nothing is due. Reads the due index of migration 0002 (on SQLite by
 * name, as the claim does: its planner would rather sort every due row).
 */
export async function oldestDueAt(
  db: Kysely<StoreDatabase>,
  dialect: StoreDialect,
  now: string,
  channels: readonly OutboxChannel[] = OUTBOX_CHANNELS,
): Promise<string | null> {
  let oldest: string | null = null;
  for (const channel of channels) {
    const row =
      dialect === 'sqlite'
        ? (await oldestDueOnSqlite(channel, now).execute(db)).rows[0]
        : await db
            .selectFrom(OUTBOX_TABLE[channel])
            .select('next_attempt_at')
            .where(DUE_STATUS)
            .where('next_attempt_at', '<=', now)
            .orderBy('next_attempt_at')
            .limit(1)
            .executeTakeFirst();
    if (row !== undefined && (oldest === null || row.next_attempt_at < oldest)) oldest = row.next_attempt_at;
  }
  return oldest;
}

/** The readiness query of one channel's table on SQLite (test/store/prune-index.test.ts checks its plan). */
export function oldestDueOnSqlite(channel: OutboxChannel, now: string) {
  const table = OUTBOX_TABLE[channel];
  const index = sql.id(`${table}_due_idx`);
  return sql<{ next_attempt_at: string }>`select next_attempt_at from ${sql.table(table)} indexed by ${index}
    where ${DUE_STATUS} and next_attempt_at <= ${now} order by next_attempt_at limit 1`;
}

/**
 * Records the end of an attempt, only if the claim is still the current one
 * (same token, still sending). Returns false when it was not: the lease ran
 * out and another worker claimed the message, whose result stands.
 */
export async function completeDelivery(
  db: Kysely<StoreDatabase>,
  channel: OutboxChannel,
  id: string,
  claimToken: string,
  completion: DeliveryCompletion,
  now: string,
): Promise<boolean> {
  const { db: typed, table } = channelTable(db, channel);
  const final = completion.status !== 'failed';
  const result = await typed
    .updateTable(table)
    .set({
      status: completion.status,
      locked_until: null,
      updated_at: now,
      ...(completion.status === 'sent'
        ? { sent_at: now, last_error: null, provider_message_id: completion.providerMessageId }
        : { last_error: completion.error }),
      ...(completion.status === 'failed' ? { next_attempt_at: completion.retryAt } : {}),
      // The code is a secret: once nothing more will be sent, it goes.
      ...(final && channel === 'sms' ? { code: null } : {}),
    })
    .where('id', '=', id)
    .where('claim_token', '=', claimToken)
    .where('status', '=', 'sending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Records many sent messages of one table in one statement; returns the ids
 * whose claim was still current. Sent is by far the most common result, and
 * one statement instead of one per message is what lets a busy worker keep
 * up on PostgreSQL, where each statement is a round trip.
 */
export async function completeSent(
  db: Kysely<StoreDatabase>,
  dialect: StoreDialect,
  channel: OutboxChannel,
  entries: ReadonlyArray<{
    readonly id: string;
    readonly claimToken: string;
    readonly providerMessageId: string | null;
  }>,
  now: string,
): Promise<Set<string>> {
  if (entries.length === 0) return new Set();
  // The same statement text whatever the batch's size (three parameters, or
  // one, not three a row to bind and parse, and on SQLite one prepared
  // statement in the connection's cache instead of one per batch size).
  // PostgreSQL: three arrays; SQLite has none: one JSON array of rows.
  const sent =
    dialect === 'postgres'
      ? sql`unnest(${entries.map((e) => e.id)}::text[], ${entries.map((e) => e.claimToken)}::text[], ${entries.map((e) => e.providerMessageId)}::text[]) as v(column1, column2, column3)`
      : jsonRows(entries.map((e) => [e.id, e.claimToken, e.providerMessageId]));
  const eraseCode = channel === 'sms' ? sql`, code = null` : sql``;
  // SQLite would otherwise walk the status index of every sending row and read
  // the whole batch for each; `+` keeps the index out, so that it reads the
  // batch once and finds each row by its id (test/store/outbox-statements.test.ts).
  const sending = dialect === 'sqlite' ? sql`+t.status = 'sending'` : sql`t.status = 'sending'`;
  const { rows } = await sql<{ id: string }>`
    update ${sql.table(OUTBOX_TABLE[channel])} as t
    set status = 'sent', sent_at = ${now}, updated_at = ${now}, locked_until = null, last_error = null,
        provider_message_id = v.column3${eraseCode}
    from ${sent}
    where t.id = v.column1 and t.claim_token = v.column2 and ${sending}
    returning id`.execute(db);
  return new Set(rows.map((row) => row.id));
}

/**
 * Forgets a device's push token, unless the app registered a new one since
 * (then the new token is kept). Returns whether a token was removed.
 */
export async function removeDeviceToken(
  db: Kysely<StoreDatabase>,
  deviceId: string,
  token: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('devices')
    .set({ push_token: null, updated_at: now })
    .where('id', '=', deviceId)
    .where('push_token', '=', token)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * The attempt history (migration 0008): one row per finished attempt of the
 * messages whose result was just written, copied from the rows as that
 * result left them (status, last error, next attempt), in one statement per
 * table and batch, in the same transaction as the results. The id is the
 * message's and the attempt's number, so a result written twice is kept once.
 */
export async function recordAttempts(
  db: Kysely<StoreDatabase>,
  dialect: StoreDialect,
  channel: OutboxChannel,
  entries: ReadonlyArray<{ readonly id: string; readonly code: string | null }>,
  now: string,
): Promise<void> {
  if (entries.length === 0) return;
  const given =
    dialect === 'postgres'
      ? sql`unnest(${entries.map((e) => e.id)}::text[], ${entries.map((e) => e.code)}::text[]) as v(column1, column2)`
      : jsonRows(entries.map((e) => [e.id, e.code]));
  await sql`
    insert into outbox_attempts (id, channel, message_id, attempt, at, outcome, code, error, next_attempt_at)
    select t.id || ':' || t.attempts, ${channel}, t.id, t.attempts, ${now}, t.status, v.column2, t.last_error,
           case when t.status = 'failed' then t.next_attempt_at else null end
    from ${sql.table(OUTBOX_TABLE[channel])} as t join ${given} on t.id = v.column1
    on conflict (id) do nothing`.execute(db);
}

/**
 * SQLite: rows of text (or null) as a table `v` with columns column1, column2,
 * …, from one JSON parameter, so that a statement reading them has the same
 * text whatever the number of rows.
 */
function jsonRows(rows: ReadonlyArray<ReadonlyArray<string | null>>) {
  const width = rows[0]?.length ?? 0;
  const columns = Array.from({ length: width }, (_, i) => sql.raw(`json_extract(value, '$[${i}]') as column${i + 1}`));
  return sql`(select ${sql.join(columns)} from json_each(${JSON.stringify(rows)})) as v`;
}
