// The read-through funnel of the console's overview (docs/console.md#overview):
// per day, school and notification type, the push notifications queued, how
// many the provider accepted (sent), and how many were read in the app
// afterwards. The app reports reading through UpdateNoteState (a note of the
// type marked read, notes.read_at) and through GetStudentsAbcenceByID, which marks the student's absences seen
// (absences.seen_at): a notification counts as read when its student has a
// note of its type read, or for an absence an absence seen, at or after the
// time it was queued. Types the app never reports reading for read 0.
import { sql, type Kysely } from 'kysely';
import type { StoreDatabase } from '../database';

export interface FunnelRow {
  /** `YYYY-MM-DD` (UTC) of the time queued. */
  readonly day: string;
  /** The school the student had when the notification was queued; null for a student unknown then. */
  readonly school: string | null;
  readonly type: string;
  readonly queued: number;
  readonly accepted: number;
  readonly read: number;
}

/** The type whose reading is the absences' seen flag; every other type's is its notes' state. */
export const ABSENCE_TYPE = 'absence';

/**
 * The funnel of notifications queued since `since`, newest day first, then
 * by school and type; at most `limit` rows. The range is read on the index
 * (created_at, id) of migration 0010; each notification's reading is one
 * look-up in notes (student_id, type) or absences (student_id, absence_date)
 * of migration 0001, on the student's few rows.
 */
export async function readFunnel(db: Kysely<StoreDatabase>, since: string, limit: number): Promise<FunnelRow[]> {
  const rows = await readFunnelQuery(since, limit).execute(db);
  return rows.rows.map((row) => ({
    day: row.day,
    school: row.school,
    type: row.type,
    queued: Number(row.queued),
    accepted: Number(row.accepted ?? 0),
    read: Number(row.read ?? 0),
  }));
}

/** The funnel's statement (test/store/read-funnel.test.ts reads its plan on both databases). */
export function readFunnelQuery(since: string, limit: number) {
  const read = sql<number>`case when (p.type = ${ABSENCE_TYPE} and exists (select 1 from absences a
      where a.student_id = p.student_id and a.seen_at is not null and a.seen_at >= p.created_at))
    or (p.type <> ${ABSENCE_TYPE} and exists (select 1 from notes n
      where n.student_id = p.student_id and n.type = p.type and n.read_at is not null and n.read_at >= p.created_at))
    then 1 else 0 end`;
  return sql<{
    day: string;
    school: string | null;
    type: string;
    queued: number | string;
    accepted: number | string | null;
    read: number | string | null;
  }>`select substr(p.created_at, 1, 10) as day, p.school_key as school, p.type as type,
       count(*) as queued,
       sum(case when p.status = 'sent' then 1 else 0 end) as accepted,
       sum(${read}) as read
     from push_notifications p
     where p.created_at >= ${since}
     group by substr(p.created_at, 1, 10), p.school_key, p.type
     order by day desc, school, type
     limit ${limit}`;
}
