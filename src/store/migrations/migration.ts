import type { Kysely } from 'kysely';

export type StoreDialect = 'sqlite' | 'postgres';

/**
 * A schema step. It receives the dialect so that one migration set serves
 * both databases while still spelling the few things they disagree on.
 * Migrations take `Kysely<unknown>` on purpose: they are frozen in time and
 * must not follow later changes to the application's table types.
 */
export interface StoreMigration {
  up(db: Kysely<unknown>, dialect: StoreDialect): Promise<void>;
  down(db: Kysely<unknown>, dialect: StoreDialect): Promise<void>;
}
