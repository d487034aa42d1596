// AuthCode's abuse limits, counted in the store so that they hold across
// every server process: the messages already queued in a window are the
// count. The check and the insert share one write transaction, and the
// transaction is serialised (SQLite: BEGIN IMMEDIATE; PostgreSQL: an advisory
// lock), so two calls at once cannot both take the last place in a window.
// On PostgreSQL concurrent calls share one such transaction (a group commit):
// each is checked in turn, counting the rows of those before it.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { StoreDatabase } from '../database';
import { queuedColumns } from './outbox';
import type { NewAuthCodeMessage } from '../types';

/** Whose messages a limit counts: the same phone number, the same calling address, or all. */
export type AuthCodeLimitScope = 'phone' | 'caller' | 'global';

/** At most `max` messages in any `windowSeconds`. */
export interface AuthCodeLimit {
  readonly scope: AuthCodeLimitScope;
  readonly max: number;
  readonly windowSeconds: number;
}

export type AuthCodeAdmission =
  | { readonly admitted: true; readonly id: string }
  | {
      readonly admitted: false;
      /** The limit that keeps the caller waiting longest, when several are reached. */
      readonly limit: AuthCodeLimit;
      /** When this call would pass that limit (assuming no other calls in between). */
      readonly retryAt: string;
      readonly retryAfterSeconds: number;
    };

async function insertAuthCodeMessage(
  db: Kysely<StoreDatabase>,
  message: NewAuthCodeMessage,
  now: string,
  traceparent: string | null,
): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto('auth_code_messages')
    .values({
      id,
      phone: message.phone,
      code: message.code,
      caller_address: message.callerAddress,
      traceparent,
      ...queuedColumns(now),
    })
    .execute();
  return id;
}

/**
 * PostgreSQL, inside one write transaction: admits or refuses each request
 * in order, exactly as if each had its own serialised transaction (a later
 * one counts the rows the earlier ones inserted: a transaction sees its own
 * writes). The lock is taken once for the lot.
 */
export async function admitAuthCodes(
  trx: Kysely<StoreDatabase>,
  requests: ReadonlyArray<{
    readonly message: NewAuthCodeMessage;
    readonly limits: readonly AuthCodeLimit[];
    /** Kept with the row (migration 0007). */
    readonly traceparent: string | null;
  }>,
  now: Date,
): Promise<AuthCodeAdmission[]> {
  if (requests.some((request) => request.limits.length > 0)) await lockLimits(trx);
  const admissions: AuthCodeAdmission[] = [];
  for (const { message, limits, traceparent } of requests)
    admissions.push(await admitAuthCode(trx, message, limits, now, traceparent));
  return admissions;
}

// Scoped by schema, so that stores sharing a database do not wait on each other.
async function lockLimits(trx: Kysely<StoreDatabase>): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(current_schema() || '.auth_code_limits'))`.execute(trx);
}

/**
 * One request, admitted or refused. SQLite calls it inside its one immediate
 * write transaction, which already serialises admissions (see admitAuthCode
 * in outbox-role.ts); PostgreSQL through admitAuthCodes.
 */
export async function admitAuthCode(
  trx: Kysely<StoreDatabase>,
  message: NewAuthCodeMessage,
  limits: readonly AuthCodeLimit[],
  now: Date,
  traceparent: string | null,
): Promise<AuthCodeAdmission> {
  let worst: { limit: AuthCodeLimit; retryAt: Date } | null = null;
  for (const limit of limits) {
    const retryAt = await reachedUntil(trx, message, limit, now);
    if (retryAt !== null && (worst === null || retryAt > worst.retryAt)) worst = { limit, retryAt };
  }
  if (worst !== null) {
    return {
      admitted: false,
      limit: worst.limit,
      retryAt: worst.retryAt.toISOString(),
      retryAfterSeconds: Math.max(1, Math.ceil((worst.retryAt.getTime() - now.getTime()) / 1000)),
    };
  }
  return { admitted: true, id: await insertAuthCodeMessage(trx, message, now.toISOString(), traceparent) };
}

/**
 * Null when one more message fits in the limit's window; otherwise the time
 * at which the window's max-th newest message leaves it, freeing a place.
 */
async function reachedUntil(
  trx: Kysely<StoreDatabase>,
  message: NewAuthCodeMessage,
  limit: AuthCodeLimit,
  now: Date,
): Promise<Date | null> {
  if (limit.scope === 'caller' && message.callerAddress === null) return null;
  const windowMs = limit.windowSeconds * 1000;
  let query = trx
    .selectFrom('auth_code_messages')
    .select('created_at')
    .where('created_at', '>', new Date(now.getTime() - windowMs).toISOString());
  if (limit.scope === 'phone') query = query.where('phone', '=', message.phone);
  if (limit.scope === 'caller' && message.callerAddress !== null)
    query = query.where('caller_address', '=', message.callerAddress);
  const row = await query
    .orderBy('created_at', 'desc')
    .limit(1)
    .offset(limit.max - 1)
    .executeTakeFirst();
  return row === undefined ? null : new Date(new Date(row.created_at).getTime() + windowMs);
}
