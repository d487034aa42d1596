// The outbox's channels and the table that keeps each one's messages
// (docs/delivery.md), declared once for the store, delivery, the tracer, the
// metrics, the admin API and the console. A third channel is added here; the
// maps keyed by channel elsewhere do not compile until they have it.
export const OUTBOX_CHANNELS = ['push', 'sms'] as const;

/** `push`: notifications to devices; `sms`: login codes. */
export type OutboxChannel = (typeof OUTBOX_CHANNELS)[number];

export const OUTBOX_TABLE = {
  push: 'push_notifications',
  sms: 'auth_code_messages',
} as const satisfies Readonly<Record<OutboxChannel, string>>;

/** The table of channel C's messages. */
export type OutboxTable<C extends OutboxChannel = OutboxChannel> = (typeof OUTBOX_TABLE)[C];
