// Delivery workers' heartbeats (migration 0008): each worker writes its row
// every few seconds (src/delivery/heartbeat.ts) and deletes it when it stops;
// a row not written for a while is a worker that died. The console's
// overview lists them.
import type { Kysely } from 'kysely';
import type { StoreDatabase } from '../database';

export interface WorkerHeartbeat {
  readonly id: string;
  readonly startedAt: string;
  readonly beatAt: string;
}

/** Rows silent this long are deleted at the next beat of any worker. */
const FORGET_AFTER_MS = 24 * 3_600_000;

export async function writeHeartbeat(
  db: Kysely<StoreDatabase>,
  id: string,
  startedAt: string,
  now: string,
): Promise<void> {
  await db
    .insertInto('delivery_workers')
    .values({ id, started_at: startedAt, beat_at: now })
    .onConflict((oc) => oc.column('id').doUpdateSet({ beat_at: now }))
    .execute();
  const forgetBefore = new Date(Date.parse(now) - FORGET_AFTER_MS).toISOString();
  await db.deleteFrom('delivery_workers').where('beat_at', '<', forgetBefore).execute();
}

export async function deleteHeartbeat(db: Kysely<StoreDatabase>, id: string): Promise<void> {
  await db.deleteFrom('delivery_workers').where('id', '=', id).execute();
}

export async function listHeartbeats(db: Kysely<StoreDatabase>): Promise<WorkerHeartbeat[]> {
  const rows = await db.selectFrom('delivery_workers').selectAll().orderBy('started_at').limit(100).execute();
  return rows.map((row) => ({ id: row.id, startedAt: row.started_at, beatAt: row.beat_at }));
}
