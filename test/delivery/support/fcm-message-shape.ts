// The FCM HTTP v1 message shape, as the fake FCM checks it: a send whose
// message has a field FCM does not know where it stands (a channel id on
// `android` instead of `android.notification`, a TTL as a number) is refused
// with 400 INVALID_ARGUMENT, as FCM refuses it. The shape is that of the v1
// reference (Message, AndroidConfig, AndroidNotification, ApnsConfig,
// WebpushConfig; docs/delivery.md#message-options); proto JSON takes a field
// in lowerCamelCase or in snake_case, so both spellings are known here.
import type { Answer, RecordedRequest } from './fake-http-server';

type Check = (value: unknown, at: string) => string | null;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const text: Check = (value, at) => (typeof value === 'string' ? null : `Invalid value at '${at}', expected a string.`);
const bool: Check = (value, at) => (typeof value === 'boolean' ? null : `Invalid value at '${at}', expected a bool.`);
const oneOf =
  (...values: string[]): Check =>
  (value, at) =>
    typeof value === 'string' && values.includes(value) ? null : `Invalid value at '${at}' (${String(value)}).`;
const duration: Check = (value, at) =>
  typeof value === 'string' && /^\d+(\.\d{1,9})?s$/.test(value)
    ? null
    : `Invalid value at '${at}' (type.googleapis.com/google.protobuf.Duration), Field '${at}', Illegal duration format.`;
const stringMap: Check = (value, at) => {
  if (!isObject(value)) return `Invalid value at '${at}', expected a map.`;
  for (const [key, entry] of Object.entries(value))
    if (typeof entry !== 'string') return `Invalid value at '${at}[${key}]', expected a string.`;
  return null;
};
// APNs' payload is free JSON to FCM; of `aps`, the keys the options set are typed.
const apnsPayload: Check = (value, at) => {
  if (!isObject(value)) return `Invalid value at '${at}', expected an object.`;
  const aps = value.aps;
  if (aps === undefined) return null;
  if (!isObject(aps)) return `Invalid value at '${at}.aps', expected an object.`;
  if (aps.badge !== undefined && !Number.isInteger(aps.badge)) return `Invalid value at '${at}.aps.badge'.`;
  if (aps.sound !== undefined && typeof aps.sound !== 'string' && !isObject(aps.sound))
    return `Invalid value at '${at}.aps.sound'.`;
  return null;
};
// Web Push (RFC 8030): Urgency is one of four words, TTL a number of seconds.
const webpushHeaders: Check = (value, at) => {
  const problem = stringMap(value, at);
  if (problem !== null) return problem;
  const headers = value as Record<string, string>;
  for (const [name, entry] of Object.entries(headers)) {
    if (name.toLowerCase() === 'urgency' && !['very-low', 'low', 'normal', 'high'].includes(entry))
      return `Invalid value at '${at}[${name}]' (${entry}).`;
    if (name.toLowerCase() === 'ttl' && !/^\d+$/.test(entry)) return `Invalid value at '${at}[${name}]' (${entry}).`;
  }
  return null;
};
const apnsHeaders: Check = (value, at) => {
  const problem = stringMap(value, at);
  if (problem !== null) return problem;
  const headers = value as Record<string, string>;
  const priority = headers['apns-priority'];
  if (priority !== undefined && !['5', '10', '1'].includes(priority)) return `Invalid value at '${at}[apns-priority]'.`;
  const expiration = headers['apns-expiration'];
  if (expiration !== undefined && !/^\d+$/.test(expiration)) return `Invalid value at '${at}[apns-expiration]'.`;
  return null;
};

/** An object of known fields; `fields` by their snake_case name, the camelCase spelling derived. */
function object(fields: Record<string, Check>): Check {
  const known = new Map<string, Check>();
  for (const [name, check] of Object.entries(fields)) {
    known.set(name, check);
    known.set(
      name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
      check,
    );
  }
  return (value, at) => {
    if (!isObject(value)) return `Invalid value at '${at}', expected an object.`;
    for (const [name, entry] of Object.entries(value)) {
      const check = known.get(name);
      if (check === undefined)
        return `Invalid JSON payload received. Unknown name "${name}" at '${at}': Cannot find field.`;
      const problem = check(entry, `${at}.${name}`);
      if (problem !== null) return problem;
    }
    return null;
  };
}

const anything: Check = () => null;

const androidNotification = object({
  title: text,
  body: text,
  icon: text,
  color: text,
  sound: text,
  tag: text,
  click_action: text,
  body_loc_key: text,
  title_loc_key: text,
  channel_id: text,
  ticker: text,
  sticky: bool,
  image: text,
  notification_priority: text,
  default_sound: bool,
  visibility: text,
  notification_count: anything,
  body_loc_args: anything,
  title_loc_args: anything,
  event_time: text,
  local_only: bool,
  default_vibrate_timings: bool,
  default_light_settings: bool,
  vibrate_timings: anything,
  light_settings: anything,
});

const message = object({
  name: text,
  token: text,
  topic: text,
  condition: text,
  data: stringMap,
  notification: object({ title: text, body: text, image: text }),
  android: object({
    collapse_key: text,
    priority: oneOf('NORMAL', 'HIGH', 'normal', 'high'),
    ttl: duration,
    restricted_package_name: text,
    data: stringMap,
    notification: androidNotification,
    fcm_options: object({ analytics_label: text }),
    direct_boot_ok: bool,
  }),
  apns: object({
    headers: apnsHeaders,
    payload: apnsPayload,
    fcm_options: object({ analytics_label: text, image: text }),
    live_activity_token: text,
  }),
  webpush: object({
    headers: webpushHeaders,
    data: stringMap,
    notification: anything,
    fcm_options: object({ link: text, analytics_label: text }),
  }),
  fcm_options: object({ analytics_label: text }),
});

/** What FCM would say of this send's body, or null when it takes it. */
export function messageShapeProblem(body: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'Invalid JSON payload received.';
  }
  if (!isObject(parsed)) return 'Invalid JSON payload received.';
  for (const name of Object.keys(parsed))
    if (name !== 'message' && name !== 'validate_only' && name !== 'validateOnly')
      return `Invalid JSON payload received. Unknown name "${name}": Cannot find field.`;
  return message(parsed.message, 'message');
}

/** The fake FCM's route: a send with a misplaced field answers 400 INVALID_ARGUMENT, as FCM does. */
export function refuseMisplacedFields(request: RecordedRequest): Answer | undefined {
  if (!request.url.endsWith('/messages:send')) return undefined;
  const problem = messageShapeProblem(request.body);
  if (problem === null) return undefined;
  return {
    status: 400,
    body: {
      error: {
        code: 400,
        message: problem,
        status: 'INVALID_ARGUMENT',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ description: problem }] },
        ],
      },
    },
  };
}
