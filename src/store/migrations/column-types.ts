import { sql, type Expression } from 'kysely';
import type { StoreDialect } from './migration';

/**
 * Text that compares and sorts by code point on both dialects. PostgreSQL
 * would otherwise sort by the database locale (which ignores punctuation and
 * case in places), while SQLite's default collation is byte order.
 */
export function textType(dialect: StoreDialect): Expression<unknown> {
  return dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
}
