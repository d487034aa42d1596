// Finding a student by id or by any part of the name, across schools
// (docs/console.md#find-a-student). An id is matched exactly, through the
// primary key; a name by `search_name` (search-name.ts), which holds it in
// lower case without Arabic diacritics. The words are matched anywhere in the
// name, which reads the whole search_name index rather than the table
// (docs/console.md#find-a-student has the figures at 100,000 students, from
// scripts/bench-console.ts).
import { sql } from 'kysely';
import type { StoreCore } from '../core';
import { searchName } from './search-name';

export interface StudentHit {
  readonly id: string;
  readonly fullName: string;
  readonly schoolKey: string;
  readonly schoolName: string | null;
  readonly classId: string | null;
  readonly active: boolean;
}

export interface StudentHits {
  readonly items: StudentHit[];
  readonly total: number;
}

/** Longest search text taken; longer is cut. */
export const SEARCH_MAX = 100;

const likeEscaped = (text: string): string => text.replace(/[\\%_]/g, (ch) => `\\${ch}`);

export async function searchStudents(
  core: Pick<StoreCore, 'db' | 'dialect'>,
  text: string,
  page: { limit: number; offset: number },
): Promise<StudentHits> {
  const { db } = core;
  const raw = text.trim().slice(0, SEARCH_MAX);
  const words = searchName(raw)
    .split(/\s+/)
    .filter((w) => w !== '');
  if (words.length === 0) return { items: [], total: 0 };
  const byName = sql.join(
    words.map((w) => sql`search_name like ${`%${likeEscaped(w)}%`} escape '\\'`),
    sql` and `,
  );
  // The names are matched on the index (search_name, id) alone: it holds all
  // the condition reads, in the order of the page, so neither the table nor
  // a sort is touched before the page's ids are known (on SQLite, a virtual
  // column would otherwise be computed again for every row).
  const index = core.dialect === 'sqlite' ? sql`indexed by students_search_name_idx` : sql``;
  const idMatch = await sql<{ n: number | string }>`select count(*) as n from students where id = ${raw}`.execute(db);
  const exact = Number(idMatch.rows[0]?.n ?? 0) > 0;
  const named = await sql<{ n: number | string }>`select count(*) as n from students ${index}
    where ${byName} and id <> ${raw}`.execute(db);
  const total = (exact ? 1 : 0) + Number(named.rows[0]?.n ?? 0);
  // The student whose id it is comes first, then the names in order.
  const nameOffset = Math.max(0, page.offset - (exact ? 1 : 0));
  const nameLimit = page.limit - (exact && page.offset === 0 ? 1 : 0);
  const pageIds = await sql<{ id: string }>`select id from students ${index}
    where ${byName} and id <> ${raw} order by search_name, id limit ${nameLimit} offset ${nameOffset}`.execute(db);
  const ids = [...(exact && page.offset === 0 ? [raw] : []), ...pageIds.rows.map((row) => row.id)];
  if (ids.length === 0) return { items: [], total };
  const rows = await sql<{
    id: string;
    full_name: string;
    school_key: string;
    school_name: string | null;
    class_id: string | null;
    active: string;
  }>`select s.id, s.full_name, s.school_key, sc.name as school_name, s.class_id, s.active
     from students s left join schools sc on sc.key = s.school_key
     where s.id in (${sql.join(ids)})`.execute(db);
  const byId = new Map(rows.rows.map((row) => [row.id, row]));
  return {
    total,
    items: ids.flatMap((id) => {
      const row = byId.get(id);
      return row === undefined
        ? []
        : [
            {
              id: row.id,
              fullName: row.full_name,
              schoolKey: row.school_key,
              schoolName: row.school_name,
              classId: row.class_id,
              active: row.active === '1',
            },
          ];
    }),
  };
}
