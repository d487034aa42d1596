import { sql } from 'kysely';

/**
 * The condition of the outbox's settled index (migration 0020): a message no
 * longer queued or being sent. A query that reads rows by status and last
 * change must carry it, spelled exactly so: SQLite uses a partial index only
 * when the query repeats its condition word for word, and PostgreSQL cannot
 * prove it from a status passed as a parameter.
 */
export const SETTLED = sql<boolean>`status not in ('queued', 'sending')`;
