// The console's sign-in throttle in the store (migration 0017,
// docs/console.md#signing-in), so that every node counts the same failures:
// one row per key (an account name, an address) holding its current window's
// count, raised by one statement that answers the new count, so that
// concurrent attempts on two nodes cannot both read a count below the limit.
import { sql, type Kysely } from 'kysely';
import type { StoreDatabase } from './database';

/**
 * Counts one failure of `key` in the window starting at `windowStart` and
 * answers the window's count with it. A row of an earlier window starts
 * again at 1; a later one (another node's clock ahead) keeps counting.
 */
export async function countSignInFailure(db: Kysely<StoreDatabase>, key: string, windowStart: string): Promise<number> {
  const row = await db
    .insertInto('console_sign_in_failures')
    .values({ key, window_start: windowStart, count: 1 })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        count: sql`case when console_sign_in_failures.window_start < excluded.window_start then 1 else console_sign_in_failures.count + 1 end`,
        window_start: sql`case when console_sign_in_failures.window_start < excluded.window_start then excluded.window_start else console_sign_in_failures.window_start end`,
      }),
    )
    .returning('count')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The failures of each key in the window starting at `windowStart` (keys without any are left out). */
export async function readSignInFailures(
  db: Kysely<StoreDatabase>,
  keys: readonly string[],
  windowStart: string,
): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('console_sign_in_failures')
    .select(['key', 'count'])
    .where('key', 'in', keys)
    .where('window_start', '>=', windowStart)
    .execute();
  return new Map(rows.map((row) => [row.key, Number(row.count)]));
}

/** Gives back a failure counted in `windowStart`; nothing once that window is over. */
export async function giveBackSignInFailure(
  db: Kysely<StoreDatabase>,
  key: string,
  windowStart: string,
): Promise<void> {
  await db
    .updateTable('console_sign_in_failures')
    .set({ count: sql`count - 1` })
    .where('key', '=', key)
    .where('window_start', '=', windowStart)
    .where('count', '>', 0)
    .execute();
}

export async function trustSignIn(db: Kysely<StoreDatabase>, key: string, until: string): Promise<void> {
  await db
    .insertInto('console_sign_in_trust')
    .values({ key, until })
    .onConflict((oc) => oc.column('key').doUpdateSet({ until }))
    .execute();
}

export async function signInTrusted(db: Kysely<StoreDatabase>, key: string, now: string): Promise<boolean> {
  const row = await db
    .selectFrom('console_sign_in_trust')
    .select('key')
    .where('key', '=', key)
    .where('until', '>', now)
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes the counts of windows before `windowBefore` and the trust that ended before `now`. */
export async function pruneSignInThrottle(db: Kysely<StoreDatabase>, windowBefore: string, now: string): Promise<void> {
  await db.deleteFrom('console_sign_in_failures').where('window_start', '<', windowBefore).execute();
  await db.deleteFrom('console_sign_in_trust').where('until', '<', now).execute();
}
