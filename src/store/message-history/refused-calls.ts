// A student's refused calls, newest first, for the student's page
// (docs/console.md#refused-calls), through the (student_id, created_at, id)
// index of migration 0015.
import type { Kysely } from 'kysely';
import type { StoreDatabase } from '../database';

export interface RefusedCall {
  readonly id: string;
  readonly at: string;
  readonly operation: string;
  readonly channel: 'push' | 'sms';
  readonly reason: string;
  readonly studentId: string | null;
  readonly schoolKey: string | null;
  readonly type: string | null;
  /** Masked already. */
  readonly phone: string | null;
}

export async function listRefusedCalls(
  db: Kysely<StoreDatabase>,
  studentId: string,
  limit: number,
): Promise<RefusedCall[]> {
  const rows = await db
    .selectFrom('refused_calls')
    .selectAll()
    .where('student_id', '=', studentId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    at: row.created_at,
    operation: row.operation,
    channel: row.channel === 'sms' ? 'sms' : 'push',
    reason: row.reason,
    studentId: row.student_id,
    schoolKey: row.school_key,
    type: row.type,
    phone: row.phone,
  }));
}
