// Refused SendNotificationType and AuthCode calls (migration 0015,
// docs/console.md#refused-calls): one insert a refusal, written in the
// background of the refused call (src/operations/refused-call.ts), and the
// prune that keeps them as long as finished messages.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { maskPhone } from '../../log';
import type { StoreDatabase } from '../database';
import type { StoreDialect } from '../migrations';
import { deleteInBatches, PRUNE_BATCH } from '../delete-in-batches';
import type { NewRefusedCall } from '../types';

/** The longest value kept of each field given by a caller: the store's row stays small whatever the call held. */
const MAX = { reason: 64, studentId: 128, schoolKey: 512, type: 64 } as const;
const SUFFIX_DIGITS = 4;

const cut = (value: string | null, max: number): string | null => (value === null ? null : value.slice(0, max));

/**
 * One row. On PostgreSQL its commit does not wait for the WAL to reach the
 * disk (`synchronous_commit = off`, for this transaction only): a refusal
 * lost to a crash in the next fraction of a second costs nothing, and a
 * flood of refused calls should not queue disk flushes ahead of the queued
 * messages' commits. SQLite's commit in WAL mode does not wait for the disk.
 */
export async function insertRefusedCall(
  db: Kysely<StoreDatabase>,
  dialect: StoreDialect,
  call: NewRefusedCall,
  now: string,
): Promise<void> {
  if (dialect === 'postgres') {
    await db.transaction().execute(async (trx) => {
      await sql`set local synchronous_commit = off`.execute(trx);
      await insertRow(trx, call, now);
    });
    return;
  }
  await insertRow(db, call, now);
}

async function insertRow(db: Kysely<StoreDatabase>, call: NewRefusedCall, now: string): Promise<void> {
  const digits = call.phone === null ? '' : call.phone.replace(/\D/g, '');
  await db
    .insertInto('refused_calls')
    .values({
      id: randomUUID(),
      created_at: now,
      operation: call.operation,
      channel: call.operation === 'AuthCode' ? 'sms' : 'push',
      reason: call.reason.slice(0, MAX.reason),
      student_id: cut(call.studentId, MAX.studentId),
      school_key: cut(call.schoolKey, MAX.schoolKey),
      type: cut(call.type, MAX.type),
      // A number too long for any phone is kept by its end only: masking keeps the last three digits.
      phone: call.phone === null ? null : maskPhone(call.phone.slice(-32)),
      phone_suffix: digits.length >= SUFFIX_DIGITS ? digits.slice(-SUFFIX_DIGITS) : null,
    })
    .execute();
}

/** Deletes the refusals recorded before `before`, a batch at a time. */
export function pruneRefusedCalls(db: Kysely<StoreDatabase>, before: string, signal?: AbortSignal): Promise<number> {
  return deleteInBatches(
    () =>
      db
        .deleteFrom('refused_calls')
        .where(
          'id',
          'in',
          db.selectFrom('refused_calls').select('id').where('created_at', '<', before).limit(PRUNE_BATCH),
        )
        .executeTakeFirst(),
    PRUNE_BATCH,
    signal,
  );
}
