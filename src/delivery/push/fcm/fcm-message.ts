// The FCM HTTP v1 message for one push: the token, the notification and the
// data as always, and the message options (src/domain/message-options.ts)
// where the v1 message shape puts each one (docs/delivery.md#message-options):
// - android: priority `HIGH`/`NORMAL`, ttl as a duration (`"3600s"`),
//   collapse_key, and notification.channel_id;
// - apns: the APNs headers apns-priority, apns-collapse-id and apns-expiration
//   (Unix seconds), and payload.aps.sound and .badge;
// - webpush: the Web Push headers Urgency and TTL (seconds).
// The lifetime is counted down to the moment of sending, so that a message
// that waited in the outbox is not kept longer than it is worth.
import type { PushMessage } from '../../provider';

export interface FcmMessage {
  readonly token: string;
  readonly notification: { readonly title: string; readonly body: string };
  readonly data: Readonly<Record<string, string>>;
  readonly android?: Record<string, unknown>;
  readonly apns?: Record<string, unknown>;
  readonly webpush?: Record<string, unknown>;
}

// The fields that are set, in their order; undefined when none is. A loop
// rather than entries/filter/fromEntries: it runs eight times a push, and the
// arrays those made were a visible share of the worker's own CPU
// (docs/delivery.md#cpu-per-push).
const withContent = (value: Record<string, unknown>): Record<string, unknown> | undefined => {
  let present: Record<string, unknown> | undefined;
  for (const key in value) {
    const field = value[key];
    if (field !== undefined) (present ??= {})[key] = field;
  }
  return present;
};

/** `now`: milliseconds since the epoch, the moment of sending. */
export function fcmMessage(message: PushMessage, now: number): FcmMessage {
  const base: FcmMessage = {
    token: message.token,
    notification: { title: message.title, body: message.body },
    data: { ...message.data, notificationId: message.id },
  };
  const options = message.options ?? null;
  if (options === null) return base;
  const expires = options.expiresAt === null ? null : Date.parse(options.expiresAt);
  const ttlSeconds = expires === null ? undefined : Math.max(0, Math.floor((expires - now) / 1000));
  const { android, apns, webpush } = options;
  const apnsHeaders = withContent({
    'apns-priority': apns.priority === undefined ? undefined : String(apns.priority),
    'apns-collapse-id': apns.collapseId,
    'apns-expiration': expires === null ? undefined : String(Math.floor(expires / 1000)),
  });
  const aps = withContent({ sound: apns.sound, badge: apns.badge });
  const sections = {
    android: withContent({
      priority: android.priority?.toUpperCase(),
      ttl: ttlSeconds === undefined ? undefined : `${ttlSeconds}s`,
      collapse_key: android.collapseKey,
      notification: withContent({ channel_id: android.channelId }),
    }),
    apns: withContent({ headers: apnsHeaders, payload: aps === undefined ? undefined : { aps } }),
    webpush: withContent({
      headers: withContent({
        Urgency: webpush.urgency,
        TTL: ttlSeconds === undefined ? undefined : String(ttlSeconds),
      }),
    }),
  };
  return { ...base, ...withContent(sections) };
}
