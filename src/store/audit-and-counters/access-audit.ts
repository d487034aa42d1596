// The audit trail of reads of personal data (src/access/audit-trail.ts): it
// is written in batches, listed newest first by the admin API, and pruned by
// age. Times are ISO-8601 UTC text, as everywhere in the store.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AccessAuditTable, StoreDatabase } from '../database';
import { PRUNE_BATCH, deleteInBatches } from '../delete-in-batches';

export type AuditOutcome = 'allowed' | 'refused';

export interface AuditRow {
  readonly id: string;
  readonly at: string;
  readonly address: string | null;
  readonly user: string | null;
  readonly endpoint: string;
  readonly operation: string;
  readonly subjectKind: string | null;
  readonly subject: string | null;
  readonly outcome: AuditOutcome;
  /** Why it was refused (`network`, `auth`, `limit`, `enumeration`), or `summary` for a summary entry. */
  readonly reason: string | null;
  /** The full length of a subject kept cut (docs/access-limits.md#what-an-entry-keeps), else null. */
  readonly subjectLength: number | null;
  /** SHA-256 (hex) of the whole of a subject kept cut, else null. */
  readonly subjectSha256: string | null;
  /** A summary entry: the refusals of its caller in its minute counted instead of kept one by one; null on every other entry. */
  readonly omitted: number | null;
}

/** An entry to write; the store gives it its id. */
export type NewAuditRow = Omit<AuditRow, 'id'>;

export interface AuditQuery {
  /** Inclusive, ISO time. */
  readonly from?: string;
  /** Exclusive, ISO time. */
  readonly to?: string;
  readonly endpoint?: string;
  readonly operation?: string;
  readonly outcome?: AuditOutcome;
  readonly address?: string;
  readonly user?: string;
  readonly subject?: string;
  readonly limit: number;
  readonly offset: number;
  /** Entries older than this one (the console's next page, by key rather than offset). */
  readonly before?: AuditCursor;
  /** Entries newer than this one (the console's previous page). */
  readonly after?: AuditCursor;
}

/** An entry's place in the trail's order: its time, then its id. */
export interface AuditCursor {
  readonly at: string;
  readonly id: string;
}

export interface AuditPage {
  readonly items: AuditRow[];
  readonly total: number;
}

const toAuditRow = (row: AccessAuditTable): AuditRow => ({
  id: row.id,
  at: row.at,
  address: row.address,
  user: row.user,
  endpoint: row.endpoint,
  operation: row.operation,
  subjectKind: row.subject_kind,
  subject: row.subject,
  outcome: row.outcome,
  reason: row.reason,
  subjectLength: row.subject_length === null ? null : Number(row.subject_length),
  subjectSha256: row.subject_sha256,
  omitted: row.omitted === null ? null : Number(row.omitted),
});

/** Writes the entries in one statement. */
export async function insertAuditRows(db: Kysely<StoreDatabase>, rows: readonly NewAuditRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('access_audit')
    .values(
      rows.map((row) => ({
        id: randomUUID(),
        at: row.at,
        address: row.address,
        user: row.user,
        endpoint: row.endpoint,
        operation: row.operation,
        subject_kind: row.subjectKind,
        subject: row.subject,
        outcome: row.outcome,
        reason: row.reason,
        subject_length: row.subjectLength,
        subject_sha256: row.subjectSha256,
        omitted: row.omitted,
      })),
    )
    .execute();
}

export async function listAuditRows(db: Kysely<StoreDatabase>, query: AuditQuery): Promise<AuditPage> {
  let base = db.selectFrom('access_audit');
  if (query.from !== undefined) base = base.where('at', '>=', query.from);
  if (query.to !== undefined) base = base.where('at', '<', query.to);
  if (query.endpoint !== undefined) base = base.where('endpoint', '=', query.endpoint);
  if (query.operation !== undefined) base = base.where('operation', '=', query.operation);
  if (query.outcome !== undefined) base = base.where('outcome', '=', query.outcome);
  if (query.address !== undefined) base = base.where('address', '=', query.address);
  if (query.user !== undefined) base = base.where('user', '=', query.user);
  if (query.subject !== undefined) base = base.where('subject', '=', query.subject);
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  // A cursor seeks in the (at, id) index; the later entries are read oldest first and turned round.
  const cursor = query.after ?? query.before;
  const backwards = query.after !== undefined;
  const seek =
    cursor === undefined
      ? base
      : base.where((eb) =>
          eb.or([
            eb('at', backwards ? '>' : '<', cursor.at),
            eb.and([eb('at', '=', cursor.at), eb('id', backwards ? '>' : '<', cursor.id)]),
          ]),
        );
  const direction = backwards ? 'asc' : 'desc';
  const rows = await seek
    .selectAll()
    .orderBy('at', direction)
    .orderBy('id', direction)
    .limit(query.limit)
    .offset(cursor === undefined ? query.offset : 0)
    .execute();
  if (backwards) rows.reverse();
  return { items: rows.map(toAuditRow), total: Number(total?.n ?? 0) };
}

/** Deletes entries older than `before` in batches (deleteInBatches); stops once `signal` is aborted. */
export function pruneAuditRows(
  db: Kysely<StoreDatabase>,
  before: string,
  signal?: AbortSignal,
  batch = PRUNE_BATCH,
): Promise<number> {
  return deleteInBatches(
    () =>
      db
        .deleteFrom('access_audit')
        .where('id', 'in', db.selectFrom('access_audit').select('id').where('at', '<', before).limit(batch))
        .executeTakeFirst(),
    batch,
    signal,
  );
}
