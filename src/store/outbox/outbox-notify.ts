// PostgreSQL LISTEN/NOTIFY for the outbox: a call that queues a message sends
// a NOTIFY in the same transaction (so it is delivered on commit, never
// before the row is visible, and never for a rolled-back row), and each
// worker process listens on one dedicated connection of its own.
//
// The channel is per schema, so that stores sharing a database (tenants,
// tests) do not wake each other. A schema name may be 63 bytes long and a
// channel name too, so the channel is a digest of the schema's name.
import { sql, type RawBuilder } from 'kysely';
import { Client } from 'pg';
import type { OutboxChannel } from '../../shared/outbox-channel';
import { CONNECT_TIMEOUT_MS } from '../connection/postgres';

// Written once as text: the raw LISTEN client reads it with a plain query.
const OUTBOX_CHANNEL_TEXT = "'outbox_' || md5(current_schema())";
/** The channel of the current schema, as an SQL expression. */
export const OUTBOX_CHANNEL: RawBuilder<string> = sql.raw<string>(OUTBOX_CHANNEL_TEXT);

/** `select pg_notify(...)`: wakes the listening workers once the transaction commits. */
export function notifyOutbox(channel: OutboxChannel): RawBuilder<unknown> {
  return sql`select pg_notify(${OUTBOX_CHANNEL}, ${channel})`;
}

export interface OutboxSubscription {
  /** Settles when the connection is lost (with the error) or closed (undefined). */
  readonly ended: Promise<Error | undefined>;
  close(): Promise<void>;
}

export interface ListenOptions {
  readonly databaseUrl: string;
  readonly schema: string | undefined;
  /** A message was queued and committed (`push` or `sms`). */
  readonly onNotification: (channel: string) => void;
}

/**
 * Opens a connection of its own and LISTENs on the outbox channel. Rejects
 * when the connection or the LISTEN fails; the caller retries.
 */
export async function listenForOutbox(options: ListenOptions): Promise<OutboxSubscription> {
  const client = new Client({
    connectionString: options.databaseUrl,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // Keepalive probes (from 10 s of silence) notice a server that vanished
    // without closing the socket; the safety poll covers the meantime.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(options.schema !== undefined ? { options: `-c search_path=${options.schema}` } : {}),
  });
  let closing = false;
  let settle: (error: Error | undefined) => void = () => undefined;
  const ended = new Promise<Error | undefined>((resolve) => (settle = resolve));
  // pg emits 'error' for a connection lost while idle; without a listener Node would treat it as uncaught.
  client.on('error', (error) => settle(error));
  client.on('end', () => settle(closing ? undefined : new Error('The listening connection was closed.')));
  client.on('notification', (message) => options.onNotification(message.payload ?? ''));
  try {
    await client.connect();
    const { rows } = await client.query<{ channel: string }>(`select ${OUTBOX_CHANNEL_TEXT} as channel`);
    const channel = rows[0]?.channel ?? '';
    // A digest: letters and digits only, safe between double quotes.
    await client.query(`listen "${channel}"`);
  } catch (error) {
    closing = true;
    await client.end().catch(() => undefined);
    throw error;
  }
  return {
    ended,
    async close() {
      closing = true;
      await client.end().catch(() => undefined);
      settle(undefined);
    },
  };
}
