// A query written once for both channels' tables. Kysely cannot follow a
// table name that is a variable, and the two tables share the outbox's
// columns (migration 0001), so such a query is typed against the push table;
// this is the one place that says so. A column only the push table has
// (student_id) must be asked for only when the channel is push.
import type { Kysely } from 'kysely';
import { OUTBOX_TABLE, type OutboxChannel } from '../../shared/outbox-channel';
import type { StoreDatabase } from '../database';

export interface ChannelTable {
  readonly db: Kysely<Pick<StoreDatabase, 'push_notifications'>>;
  readonly table: 'push_notifications';
}

/** The channel's table, and the database typed for a query on it. */
export function channelTable(db: Kysely<StoreDatabase>, channel: OutboxChannel): ChannelTable {
  return {
    db: db as unknown as Kysely<Pick<StoreDatabase, 'push_notifications'>>,
    table: OUTBOX_TABLE[channel] as 'push_notifications',
  };
}
