// The console's accounts and sessions (migration 0008, docs/console.md).
// A session row is keyed by the SHA-256 of the cookie's value, so the table
// alone signs nobody in; an account removed or disabled loses its sessions in
// the same transaction.
import type { Kysely } from 'kysely';
import type { StoreDatabase } from './database';

export type ConsoleRole = 'viewer' | 'operator' | 'admin';
export const CONSOLE_ROLES: readonly ConsoleRole[] = ['viewer', 'operator', 'admin'];

export interface ConsoleAccount {
  readonly name: string;
  readonly role: ConsoleRole;
  readonly disabled: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The zone its times are shown in (migration 0019); null: the console's default. */
  readonly timeZone: string | null;
}

export interface ConsoleAccountSecret extends ConsoleAccount {
  readonly passwordHash: string;
}

export interface NewConsoleSession {
  /** SHA-256 (hex) of the cookie's value. */
  readonly id: string;
  readonly account: string;
  readonly csrf: string;
}

export interface ConsoleSession extends NewConsoleSession {
  readonly createdAt: string;
  readonly lastSeenAt: string;
  readonly role: ConsoleRole;
  readonly disabled: boolean;
  /** The account's zone, read with the session so that a page needs no second read; null: the default. */
  readonly timeZone: string | null;
}

/** `added`, or `updated` when the name existed (its password and role replaced, its sessions ended). */
export type AccountWrite = 'added' | 'updated';

const asRole = (value: string): ConsoleRole =>
  (CONSOLE_ROLES as readonly string[]).includes(value) ? (value as ConsoleRole) : 'viewer';

const toAccount = (row: StoreDatabase['console_accounts']): ConsoleAccountSecret => ({
  name: row.name,
  role: asRole(row.role),
  disabled: Number(row.disabled) === 1,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  timeZone: row.time_zone ?? null,
  passwordHash: row.password_hash,
});

export async function findAccount(db: Kysely<StoreDatabase>, name: string): Promise<ConsoleAccountSecret | null> {
  const row = await db.selectFrom('console_accounts').selectAll().where('name', '=', name).executeTakeFirst();
  return row === undefined ? null : toAccount(row);
}

export async function listAccounts(db: Kysely<StoreDatabase>): Promise<ConsoleAccount[]> {
  const rows = await db.selectFrom('console_accounts').selectAll().orderBy('name').execute();
  return rows.map((row) => {
    const { passwordHash: _hash, ...account } = toAccount(row);
    return account;
  });
}

export async function writeAccount(
  trx: Kysely<StoreDatabase>,
  account: { name: string; passwordHash: string; role: ConsoleRole },
  now: string,
): Promise<AccountWrite> {
  const existing = await trx
    .selectFrom('console_accounts')
    .select('name')
    .where('name', '=', account.name)
    .executeTakeFirst();
  if (existing === undefined) {
    await trx
      .insertInto('console_accounts')
      .values({
        name: account.name,
        password_hash: account.passwordHash,
        role: account.role,
        disabled: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return 'added';
  }
  await trx
    .updateTable('console_accounts')
    .set({ password_hash: account.passwordHash, role: account.role, disabled: 0, updated_at: now })
    .where('name', '=', account.name)
    .execute();
  await trx.deleteFrom('console_sessions').where('account', '=', account.name).execute();
  return 'updated';
}

/** Changes a role or the disabled flag; ends the account's sessions. False when there is no such account. */
export async function changeAccount(
  trx: Kysely<StoreDatabase>,
  name: string,
  change: { role?: ConsoleRole; disabled?: boolean },
  now: string,
): Promise<boolean> {
  const result = await trx
    .updateTable('console_accounts')
    .set({
      ...(change.role === undefined ? {} : { role: change.role }),
      ...(change.disabled === undefined ? {} : { disabled: change.disabled ? 1 : 0 }),
      updated_at: now,
    })
    .where('name', '=', name)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return false;
  await trx.deleteFrom('console_sessions').where('account', '=', name).execute();
  return true;
}

export async function removeAccount(trx: Kysely<StoreDatabase>, name: string): Promise<boolean> {
  await trx.deleteFrom('console_sessions').where('account', '=', name).execute();
  const result = await trx.deleteFrom('console_accounts').where('name', '=', name).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function insertSession(db: Kysely<StoreDatabase>, session: NewConsoleSession, now: string): Promise<void> {
  await db
    .insertInto('console_sessions')
    .values({ id: session.id, account: session.account, csrf: session.csrf, created_at: now, last_seen_at: now })
    .execute();
}

/** The session with its account's role, or null when the session or the account is gone. */
export async function findSession(db: Kysely<StoreDatabase>, id: string): Promise<ConsoleSession | null> {
  const row = await db
    .selectFrom('console_sessions')
    .innerJoin('console_accounts', 'console_accounts.name', 'console_sessions.account')
    .select([
      'console_sessions.id',
      'console_sessions.account',
      'console_sessions.csrf',
      'console_sessions.created_at',
      'console_sessions.last_seen_at',
      'console_accounts.role',
      'console_accounts.disabled',
      'console_accounts.time_zone',
    ])
    .where('console_sessions.id', '=', id)
    .executeTakeFirst();
  if (row === undefined) return null;
  return {
    id: row.id,
    account: row.account,
    csrf: row.csrf,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    role: asRole(row.role),
    disabled: Number(row.disabled) === 1,
    timeZone: row.time_zone ?? null,
  };
}

/**
 * The account's own zone (null: back to the console's default). Unlike a
 * change of role or state it ends no session and leaves `updated_at` (an
 * administrator's last change) alone: the audit trail says when it was set.
 * `onlyIfUnset`: written only when the account has none yet (a browser's
 * earlier choice, adopted once: docs/design.md). False when nothing was written.
 */
export async function setAccountTimeZone(
  db: Kysely<StoreDatabase>,
  name: string,
  zone: string | null,
  onlyIfUnset = false,
): Promise<boolean> {
  let update = db.updateTable('console_accounts').set({ time_zone: zone }).where('name', '=', name);
  if (onlyIfUnset) update = update.where('time_zone', 'is', null);
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function touchSession(db: Kysely<StoreDatabase>, id: string, now: string): Promise<void> {
  await db.updateTable('console_sessions').set({ last_seen_at: now }).where('id', '=', id).execute();
}

export async function deleteSession(db: Kysely<StoreDatabase>, id: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('id', '=', id).execute();
}

/** Sessions idle since before `idleBefore` or started before `startedBefore`; how many were deleted. */
export async function pruneSessions(
  db: Kysely<StoreDatabase>,
  idleBefore: string,
  startedBefore: string,
): Promise<number> {
  const result = await db
    .deleteFrom('console_sessions')
    .where((eb) => eb.or([eb('last_seen_at', '<', idleBefore), eb('created_at', '<', startedBefore)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
