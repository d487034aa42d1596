// A query written once for both channels' tables. Kysely cannot follow a
// table name that is a variable, and the two tables share the outbox's
// columns (migration 0001), so such a query is typed against the push table;
// this is the one place that says so. A column only the push table has
// (student_id) must be asked for only when the channel is push.
import type { Kysely, Selectable } from 'kysely';
import { OUTBOX_TABLE, type OutboxChannel, type OutboxTable } from '../../shared/outbox-channel';
import type { StoreDatabase } from '../database';

type PushTyped = Pick<StoreDatabase, 'push_notifications'>;
type PushRow = Selectable<StoreDatabase['push_notifications']>;

export interface ChannelTable<C extends OutboxChannel = OutboxChannel> {
  readonly db: Kysely<PushTyped>;
  readonly table: 'push_notifications';
  /** The rows such a query returned (selected with `selectAll` or `returningAll`), as the channel's own table has them. */
  readonly rowsOf: (rows: PushRow[]) => Selectable<StoreDatabase[OutboxTable<C>]>[];
}

/** The channel's table, and the database typed for a query on it. */
export function channelTable<C extends OutboxChannel>(db: Kysely<StoreDatabase>, channel: C): ChannelTable<C> {
  // The compiler cannot know that a query on OUTBOX_TABLE[channel] has the
  // push table's shared columns (migration 0001), nor which channel's rows it
  // returns: this is the one statement that says both.
  return { db, table: OUTBOX_TABLE[channel], rowsOf: (rows: PushRow[]) => rows } as unknown as ChannelTable<C>;
}
