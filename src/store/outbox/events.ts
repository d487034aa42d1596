// Delivery events to a school's system (docs/delivery.md#delivery-events):
// written in the transaction of the outcome they report, then claimed,
// leased and completed as the push outbox is, from a table of their own.
//
// Each event's body is built by the database from the push notification's
// row as the outcome left it, in the same statement that writes the event,
// so that a queued push or a completed attempt and its event commit together
// or not at all. The event's id (the webhook-id) is derived from the message
// and the event's place among the message's events, the same on every retry.
import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { EventOutboxTable, EventSubscriptionState, EventSubscriptionsTable, StoreDatabase } from '../database';
import { schoolKey } from '../../domain/school-key';
import type { StoreDialect } from '../migrations';
import { PRUNE_BATCH, deleteInBatches } from '../delete-in-batches';
import { prepareQuery, type BoundQuery } from '../connection/prepared';

/** A school's subscription as the admin API shows it: never its secret. */
export interface EventSubscriptionView {
  readonly baseUrl: string;
  readonly url: string;
  readonly state: EventSubscriptionState;
  readonly failingSince: string | null;
  readonly lastError: string | null;
  /** Events queued or being sent. */
  readonly pending: number;
  /** Events whose last attempt failed, waiting for their retry. */
  readonly failed: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** A claimed event with what its delivery needs. */
export interface ClaimedEvent {
  readonly id: string;
  readonly claimToken: string;
  /** Attempts including this one. */
  readonly attempts: number;
  readonly schoolKey: string;
  readonly type: string;
  readonly body: string;
  readonly url: string;
  readonly secret: string;
}

export type EventCompletion =
  | { readonly status: 'sent' }
  | { readonly status: 'failed'; readonly retryAt: string; readonly error: string }
  // The receiver said the subscription is gone (410): the school's events stop.
  | { readonly status: 'gone'; readonly retryAt: string; readonly error: string };

export interface EventCompletionEntry {
  readonly id: string;
  readonly claimToken: string;
  readonly schoolKey: string;
  readonly completion: EventCompletion;
}

/** When a failing receiver is marked failing, then disabled: how long since its first failure without a success. */
export interface EventHealthRule {
  readonly failingAfterMs: number;
  readonly disableAfterMs: number;
}

const PENDING_STATUSES = ['queued', 'failed', 'sending'] as const;

/** The JSON object of key/value pairs, built by the database. */
function jsonObject(dialect: StoreDialect, pairs: ReadonlyArray<readonly [string, RawBuilder<unknown>]>) {
  const args = sql.join(pairs.map(([key, value]) => sql`${sql.lit(key)}, ${value}`));
  return dialect === 'postgres' ? sql`json_build_object(${args})` : sql`json_object(${args})`;
}

/**
 * The event rows for push notifications `t` (joined to their student `s`,
 * school `sc`): `type` and `seq` are SQL over those rows. Only schools with a
 * subscription that is not disabled get events.
 */
function insertEvents(
  dialect: StoreDialect,
  type: RawBuilder<string>,
  from: RawBuilder<unknown>,
  now: string,
  condition: RawBuilder<boolean> = sql<boolean>`true`,
) {
  const text = (value: unknown) => (dialect === 'postgres' ? sql`${value}::text` : sql`${value}`);
  const failure = sql<boolean>`t.status in ('failed', 'dead')`;
  const data = jsonObject(dialect, [
    ['notificationId', sql`t.id`],
    ['studentId', sql`t.student_id`],
    ['school', sql`sc.base_url`],
    ['notificationType', sql`t.type`],
    ['channel', text('push')],
    ['attempt', sql`t.attempts`],
    ['error', sql`case when ${failure} then t.last_error else null end`],
    ['nextAttemptAt', sql`case when t.status = 'failed' then t.next_attempt_at else null end`],
  ]);
  const body = jsonObject(dialect, [
    ['type', sql`${type}`],
    ['timestamp', text(now)],
    ['data', data],
  ]);
  const bodyText = dialect === 'postgres' ? sql`${body}::text` : body;
  // The next place among the message's events: results of one message are
  // written one at a time (each by its current claim), so the places never clash.
  const seq = sql<number>`coalesce((select max(p.seq) from event_outbox as p where p.message_id = t.id), -1) + 1`;
  return sql`
    insert into event_outbox (id, school_key, message_id, seq, type, body, status, attempts, next_attempt_at, created_at, updated_at)
    select 'msg_' || replace(t.id, '-', '') || '_' || (${seq}), s.school_key, t.id, ${seq}, ${type}, ${bodyText},
           'queued', 0, ${now}, ${now}, ${now}
    from ${from}
    join students as s on s.id = t.student_id
    join schools as sc on sc.key = s.school_key
    join event_subscriptions as e on e.school_key = s.school_key and e.state <> 'disabled'
    where ${condition}
    on conflict (id) do nothing`;
}

/** The columns of a push notification the events' bodies read (for a RETURNING that stands in for the table). */
export const EVENT_SOURCE_COLUMNS = [
  'id',
  'student_id',
  'type',
  'attempts',
  'status',
  'last_error',
  'next_attempt_at',
] as const;

/**
 * PostgreSQL: the statement inserting `notification.queued` events for the
 * rows of `queued`, a data-modifying WITH returning EVENT_SOURCE_COLUMNS of
 * the push notifications it inserts (the same statement cannot read them
 * from the table).
 */
export function queuedEventsFrom(queued: string, now: string): RawBuilder<unknown> {
  return insertEvents('postgres', sql<string>`'notification.queued'`, sql`${sql.table(queued)} as t`, now);
}

/**
 * SQLite: `notification.queued` for the push notifications just inserted
 * (`ids`, a JSON array: one statement for a whole group commit rather than
 * one per push), compiled once (connection/prepared.ts); run in their
 * transaction.
 */
export function queuedEventStatement(db: Kysely<StoreDatabase>): BoundQuery<'ids' | 'now', unknown> {
  return prepareQuery(['ids', 'now'], (p) => ({
    compile: () =>
      insertEvents(
        'sqlite',
        sql<string>`'notification.queued'`,
        sql`push_notifications as t`,
        p.now,
        sql<boolean>`t.id in (select value from ${jsonList('sqlite', p.ids)} as l)`,
      ).compile(db),
  }));
}

/**
 * The events of attempts whose results were just written (push only: login
 * codes belong to no school), from the rows as the results left them:
 * `notification.sent`, `.retrying` or `.dead`, and `device.unregistered`
 * for those in `tokenGone`. Run in the results' transaction.
 */
export async function recordOutcomeEvents(
  db: Kysely<StoreDatabase>,
  statements: EventStatements,
  ids: readonly string[],
  tokenGone: readonly string[],
  now: string,
): Promise<void> {
  if (ids.length > 0) await db.executeQuery(statements.outcomeEvents({ ids: JSON.stringify(ids), now }));
  if (tokenGone.length > 0)
    await db.executeQuery(statements.unregisteredEvents({ ids: JSON.stringify(tokenGone), now }));
}

/** The rows of the JSON array of strings `list` (one parameter whatever its length), as `value`. */
function jsonList(dialect: StoreDialect, list: string): RawBuilder<unknown> {
  return dialect === 'postgres'
    ? sql`(select jsonb_array_elements_text(${list}::jsonb) as value)`
    : sql`(select value from json_each(${list}))`;
}

/**
 * `column` where SQLite must not read it through an index: given the ids
 * (the primary key), it would rather read every row of a status through the
 * status index (every queued event, every sent push) and test each id, a
 * cost growing with the backlog, 10 ms a claim at 10,000 pending events
 * (docs/benchmark.md#delivery-events). SQLite's unary `+` takes a term off
 * its indexes; PostgreSQL plans by its statistics.
 */
function unindexed(dialect: StoreDialect, column: string): RawBuilder<unknown> {
  return dialect === 'sqlite' ? sql`+${sql.ref(column)}` : sql.ref(column);
}

/**
 * The event worker's statements, compiled once per store (connection/prepared.ts):
 * built and compiled at each call, a claim and its results cost the worker
 * about ten times the CPU the database took to run them, several times a
 * push's (docs/benchmark.md#delivery-events). A list of ids is one parameter,
 * a JSON array, so that each statement keeps one shape.
 */
export function eventStatements(db: Kysely<StoreDatabase>, dialect: StoreDialect) {
  const raw = <Row>(query: RawBuilder<Row>) => ({ compile: () => query.compile(db) });
  // Read in due order from the due index (SQLite is told to use it: with its own choice, the status index and a
  // sort of every pending row, the claim took 160 ms at 12,000 pending events and held the write lock meanwhile,
  // holding up the pushes' claims and results; scripts/bench-events.ts). Ties need no order: an event whose
  // message has an earlier one pending is never a candidate.
  const outbox = dialect === 'sqlite' ? sql`event_outbox as o indexed by event_outbox_due_idx` : sql`event_outbox as o`;
  return {
    claimLock: prepareQuery([], () =>
      raw(sql`select pg_advisory_xact_lock(hashtext(current_schema() || '.event_claims'))`),
    ),
    inFlight: prepareQuery(['now'], (p) =>
      db
        .selectFrom('event_outbox')
        .select(['school_key', (eb) => eb.fn.countAll<number>().as('n')])
        .where('status', '=', 'sending')
        .where('next_attempt_at', '>', p.now)
        .groupBy('school_key'),
    ),
    candidates: prepareQuery(['now', 'limit'], (p) =>
      raw(sql<{ id: string; school_key: string }>`
        select o.id, o.school_key from ${outbox}
        where o.status in ('queued', 'failed', 'sending') and o.next_attempt_at <= ${p.now}
          and not exists (select 1 from event_outbox as p where p.message_id = o.message_id and p.seq < o.seq
                          and p.status in ('queued', 'failed', 'sending'))
          and exists (select 1 from event_subscriptions as e where e.school_key = o.school_key and e.state <> 'disabled')
        order by o.next_attempt_at
        limit ${dialect === 'postgres' ? sql`${p.limit}::integer` : p.limit}`),
    ),
    claim: prepareQuery(['ids', 'now', 'leaseUntil', 'claimToken'], (p) =>
      db
        .updateTable('event_outbox')
        .set((eb) => ({
          status: 'sending',
          claim_token: p.claimToken,
          locked_until: p.leaseUntil,
          next_attempt_at: p.leaseUntil,
          attempts: eb('attempts', '+', 1),
          updated_at: p.now,
        }))
        .where('id', 'in', sql<string>`(select value from ${jsonList(dialect, p.ids)} as l)`)
        .where(sql<boolean>`${unindexed(dialect, 'status')} in ('queued', 'failed', 'sending')`)
        .where(sql<boolean>`${unindexed(dialect, 'next_attempt_at')} <= ${p.now}`)
        .returning(['id', 'claim_token', 'attempts', 'school_key', 'type', 'body', 'created_at', 'seq']),
    ),
    subscriptions: prepareQuery(['schoolKeys'], (p) =>
      db
        .selectFrom('event_subscriptions')
        .select(['school_key', 'url', 'secret'])
        .where('school_key', 'in', sql<string>`(select value from ${jsonList(dialect, p.schoolKeys)} as l)`),
    ),
    sent: prepareQuery(['id', 'claimToken', 'now'], (p) =>
      db
        .updateTable('event_outbox')
        .set({ status: 'sent', sent_at: p.now, updated_at: p.now, locked_until: null, last_error: null })
        .where('id', '=', p.id)
        .where('claim_token', '=', p.claimToken)
        .where('status', '=', 'sending'),
    ),
    failed: prepareQuery(['id', 'claimToken', 'now', 'retryAt', 'error'], (p) =>
      db
        .updateTable('event_outbox')
        .set({
          status: 'failed',
          next_attempt_at: p.retryAt,
          updated_at: p.now,
          locked_until: null,
          last_error: p.error,
        })
        .where('id', '=', p.id)
        .where('claim_token', '=', p.claimToken)
        .where('status', '=', 'sending'),
    ),
    // recordOutcomeEvents: run with every batch of the push worker's results.
    outcomeEvents: prepareQuery(['ids', 'now'], (p) =>
      raw(
        insertEvents(
          dialect,
          sql<string>`case t.status when 'sent' then 'notification.sent' when 'failed' then 'notification.retrying' else 'notification.dead' end`,
          sql`push_notifications as t`,
          p.now,
          sql<boolean>`t.id in (select value from ${jsonList(dialect, p.ids)} as l) and ${unindexed(dialect, 't.status')} in ('sent', 'failed', 'dead')`,
        ),
      ),
    ),
    unregisteredEvents: prepareQuery(['ids', 'now'], (p) =>
      raw(
        insertEvents(
          dialect,
          sql<string>`'device.unregistered'`,
          sql`push_notifications as t`,
          p.now,
          sql<boolean>`t.id in (select value from ${jsonList(dialect, p.ids)} as l)`,
        ),
      ),
    ),
    subscriptionState: prepareQuery(['schoolKeys'], (p) =>
      db
        .selectFrom('event_subscriptions')
        .select(['school_key', 'state', 'failing_since'])
        .where('school_key', 'in', sql<string>`(select value from ${jsonList(dialect, p.schoolKeys)} as l)`),
    ),
  };
}

export type EventStatements = ReturnType<typeof eventStatements>;

/**
 * Claims up to `limit` due events, oldest due first, leasing them until
 * `leaseUntil`: never an event whose message has an earlier event not yet
 * sent (the order per message), nor one of a disabled subscription, nor more
 * than `perSchool` in flight for one school. Claims are serialised (SQLite's
 * write lock; an advisory lock on PostgreSQL) so that the bound per school
 * holds across workers. Run in a write transaction.
 */
export async function claimEvents(
  db: Kysely<StoreDatabase>,
  dialect: StoreDialect,
  statements: EventStatements,
  request: { limit: number; perSchool: number; now: string; leaseUntil: string; claimToken: string },
): Promise<ClaimedEvent[]> {
  if (dialect === 'postgres') await db.executeQuery(statements.claimLock({}));
  const { now } = request;
  const { rows: inFlight } = await db.executeQuery(statements.inFlight({ now }));
  const room = new Map(inFlight.map((row) => [row.school_key, request.perSchool - Number(row.n)]));
  const { rows: candidates } = await db.executeQuery(statements.candidates({ now, limit: request.limit * 4 }));
  const chosen: string[] = [];
  for (const candidate of candidates) {
    if (chosen.length >= request.limit) break;
    const left = room.get(candidate.school_key) ?? request.perSchool;
    if (left <= 0) continue;
    room.set(candidate.school_key, left - 1);
    chosen.push(candidate.id);
  }
  if (chosen.length === 0) return [];
  const { rows: claimed } = await db.executeQuery(
    statements.claim({
      ids: JSON.stringify(chosen),
      now,
      leaseUntil: request.leaseUntil,
      claimToken: request.claimToken,
    }),
  );
  if (claimed.length === 0) return [];
  const { rows: subscriptions } = await db.executeQuery(
    statements.subscriptions({ schoolKeys: JSON.stringify([...new Set(claimed.map((row) => row.school_key))]) }),
  );
  const bySchool = new Map(subscriptions.map((row) => [row.school_key, row]));
  return claimed
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || Number(a.seq) - Number(b.seq))
    .flatMap((row) => {
      const subscription = bySchool.get(row.school_key);
      return subscription === undefined ? [] : [toClaimed(row, subscription)];
    });
}

function toClaimed(
  row: Pick<Selectable<EventOutboxTable>, 'id' | 'claim_token' | 'attempts' | 'school_key' | 'type' | 'body'>,
  subscription: Pick<Selectable<EventSubscriptionsTable>, 'url' | 'secret'>,
): ClaimedEvent {
  return {
    id: row.id,
    claimToken: row.claim_token ?? '',
    attempts: Number(row.attempts),
    schoolKey: row.school_key,
    type: row.type,
    body: row.body,
    url: subscription.url,
    secret: subscription.secret,
  };
}

/**
 * Records how event deliveries ended (only where the claim is still current)
 * and what that says of each school's receiver: a success makes it `active`;
 * failures since `failing_since` longer than the rule's times make it
 * `failing`, then `disabled`; a 410 disables it at once. Returns, per entry,
 * whether its claim was current. Run in a write transaction.
 */
export async function completeEvents(
  db: Kysely<StoreDatabase>,
  statements: EventStatements,
  entries: readonly EventCompletionEntry[],
  rule: EventHealthRule,
  now: string,
): Promise<boolean[]> {
  const current: boolean[] = [];
  for (const entry of entries) {
    const { completion } = entry;
    const { id, claimToken } = entry;
    const result = await db.executeQuery(
      completion.status === 'sent'
        ? statements.sent({ id, claimToken, now })
        : statements.failed({ id, claimToken, now, retryAt: completion.retryAt, error: completion.error }),
    );
    current.push(Number(result.numAffectedRows ?? 0) === 1);
  }
  const nowMs = Date.parse(now);
  const schoolKeys = [...new Set(entries.map((entry) => entry.schoolKey))];
  const { rows: states } = await db.executeQuery(
    statements.subscriptionState({ schoolKeys: JSON.stringify(schoolKeys) }),
  );
  const stateOf = new Map(states.map((row) => [row.school_key, row]));
  for (const schoolKey of schoolKeys) {
    const ofSchool = entries.filter((entry) => entry.schoolKey === schoolKey);
    const lastFailure = [...ofSchool].reverse().find((entry) => entry.completion.status !== 'sent');
    const subscription = stateOf.get(schoolKey);
    if (subscription === undefined || subscription.state === 'disabled') continue;
    if (ofSchool.some((entry) => entry.completion.status === 'sent') && lastFailure === undefined) {
      if (subscription.state !== 'active' || subscription.failing_since !== null)
        await db
          .updateTable('event_subscriptions')
          .set({ state: 'active', failing_since: null, last_error: null, updated_at: now })
          .where('school_key', '=', schoolKey)
          .execute();
      continue;
    }
    if (lastFailure === undefined || lastFailure.completion.status === 'sent') continue;
    const since = subscription.failing_since ?? now;
    const failedFor = nowMs - Date.parse(since);
    const state: EventSubscriptionState =
      lastFailure.completion.status === 'gone' || failedFor >= rule.disableAfterMs
        ? 'disabled'
        : failedFor >= rule.failingAfterMs
          ? 'failing'
          : subscription.state;
    await db
      .updateTable('event_subscriptions')
      .set({ state, failing_since: since, last_error: lastFailure.completion.error, updated_at: now })
      .where('school_key', '=', schoolKey)
      .execute();
  }
  return current;
}

/** Subscriptions by state, for the metrics. */
export async function subscriptionStates(
  db: Kysely<StoreDatabase>,
): Promise<Readonly<Record<EventSubscriptionState, number>>> {
  const rows = await db
    .selectFrom('event_subscriptions')
    .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('state')
    .execute();
  const counts: Record<EventSubscriptionState, number> = { active: 0, failing: 0, disabled: 0 };
  for (const row of rows) counts[row.state] = Number(row.n);
  return counts;
}

/** Deletes sent events last changed before `before`; how many. */
export function pruneSentEvents(db: Kysely<StoreDatabase>, before: string, signal?: AbortSignal): Promise<number> {
  return deleteInBatches(
    () =>
      db
        .deleteFrom('event_outbox')
        .where(
          'id',
          'in',
          db
            .selectFrom('event_outbox')
            .select('id')
            .where('status', '=', 'sent')
            .where('updated_at', '<', before)
            .limit(PRUNE_BATCH),
        )
        .executeTakeFirst(),
    PRUNE_BATCH,
    signal,
  );
}

/** The school of a base URL (any spelling of it), or null. */
export async function findSchool(
  db: Kysely<StoreDatabase>,
  baseUrl: string,
): Promise<{ key: string; baseUrl: string } | null> {
  const row = await db
    .selectFrom('schools')
    .select(['key', 'base_url'])
    .where('key', '=', schoolKey(baseUrl))
    .executeTakeFirst();
  return row === undefined ? null : { key: row.key, baseUrl: row.base_url };
}

/**
 * Creates or replaces a school's subscription: active again, its failures
 * forgotten; with `keepStoredSecret`, a stored subscription keeps its secret.
 */
export async function putSubscription(
  db: Kysely<StoreDatabase>,
  schoolKey: string,
  subscription: { url: string; secret: string; keepStoredSecret?: boolean },
  now: string,
): Promise<void> {
  await db
    .insertInto('event_subscriptions')
    .values({
      school_key: schoolKey,
      url: subscription.url,
      secret: subscription.secret,
      state: 'active',
      failing_since: null,
      last_error: null,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.column('school_key').doUpdateSet({
        url: subscription.url,
        ...(subscription.keepStoredSecret === true ? {} : { secret: subscription.secret }),
        state: 'active',
        failing_since: null,
        last_error: null,
        updated_at: now,
      }),
    )
    .execute();
}

export async function readSubscription(
  db: Kysely<StoreDatabase>,
  schoolKey: string,
  baseUrl: string,
): Promise<EventSubscriptionView | null> {
  const row = await db
    .selectFrom('event_subscriptions')
    .selectAll()
    .where('school_key', '=', schoolKey)
    .executeTakeFirst();
  if (row === undefined) return null;
  const counts = await db
    .selectFrom('event_outbox')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('school_key', '=', schoolKey)
    .where('status', 'in', [...PENDING_STATUSES])
    .groupBy('status')
    .execute();
  const count = (status: string) => Number(counts.find((c) => c.status === status)?.n ?? 0);
  return {
    baseUrl,
    url: row.url,
    state: row.state,
    failingSince: row.failing_since,
    lastError: row.last_error,
    pending: count('queued') + count('sending'),
    failed: count('failed'),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Removes a school's subscription and its undelivered events; whether there was one. */
export async function deleteSubscription(db: Kysely<StoreDatabase>, schoolKey: string): Promise<boolean> {
  const result = await db.deleteFrom('event_subscriptions').where('school_key', '=', schoolKey).executeTakeFirst();
  await db
    .deleteFrom('event_outbox')
    .where('school_key', '=', schoolKey)
    .where('status', 'in', [...PENDING_STATUSES])
    .execute();
  return Number(result.numDeletedRows) === 1;
}
