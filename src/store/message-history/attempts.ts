// A message's attempt history (migration 0008, written by the outbox's
// completeDeliveries in the transaction of each result), oldest first.
import type { Kysely } from 'kysely';
import type { OutboxChannel } from '../../shared/outbox-channel';
import type { StoreDatabase } from '../database';

export interface DeliveryAttemptRow {
  readonly attempt: number;
  readonly at: string;
  /** `sent`, `failed` (retried at nextAttemptAt), `dead` or `uncertain`. */
  readonly outcome: string;
  /** The provider's answer code, when it gave one. */
  readonly code: string | null;
  readonly error: string | null;
  readonly nextAttemptAt: string | null;
}

/** The history is bounded by the retry policy's attempts; this caps a page whatever it says. */
const MAX_ATTEMPTS_SHOWN = 100;

export async function listAttempts(
  db: Kysely<StoreDatabase>,
  channel: OutboxChannel,
  messageId: string,
): Promise<DeliveryAttemptRow[]> {
  const rows = await db
    .selectFrom('outbox_attempts')
    .selectAll()
    .where('message_id', '=', messageId)
    .where('channel', '=', channel)
    .orderBy('at')
    .orderBy('attempt')
    .limit(MAX_ATTEMPTS_SHOWN)
    .execute();
  return rows.map((row) => ({
    attempt: Number(row.attempt),
    at: row.at,
    outcome: row.outcome,
    code: row.code,
    error: row.error,
    nextAttemptAt: row.next_attempt_at,
  }));
}
