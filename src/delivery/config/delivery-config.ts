// The delivery part of the configuration (providers, worker, retries, AuthCode
// limits, templates), read from the same environment as src/config.ts and
// reported the same way: every problem, each naming its variable.
import { z } from 'zod';
import { bool, integer, integerOrOff, setting } from '../../config-values';
import { DEFAULT_TEMPLATES, type NotificationTemplate } from '../../domain';
import type { AuthCodeLimit } from '../../store';
import { MAX_RETENTION_DAYS, uncoveredLimitWindow } from '../outbox-retention';
import { PUSH_PROVIDERS, SMS_PROVIDERS, type PushSettings, type SmsSettings } from '../provider-registry';
import type { RetryPolicy } from '../retry-policy';
import { DEFAULT_SMS_TEMPLATES } from '../sms/sms-text';
import { readNotificationTemplates, readSmsTemplates } from './json-files';
import { parseLimits } from './limit-syntax';
import { providerChoice } from './provider-choice';

export type { PushSettings, SmsSettings };

export interface DeliveryConfig {
  /** Run the worker inside the server process. */
  readonly worker: boolean;
  readonly push: PushSettings;
  readonly sms: SmsSettings;
  /** The login-code text in SMS_LANGUAGE, with `{code}`. */
  readonly smsTemplate: string;
  readonly notificationTemplates: Readonly<Record<string, NotificationTemplate>>;
  /** Types (lower case) sent during quiet hours (URGENT_NOTIFICATION_TYPES). */
  readonly urgentTypes: ReadonlySet<string>;
  readonly retry: RetryPolicy;
  readonly leaseSeconds: number;
  /** Sends in flight at most (the ceiling of the adaptive limits, src/delivery/concurrency). */
  readonly concurrency: number;
  /** Sends in flight per channel the adaptive limit never goes below. */
  readonly concurrencyFloor: number;
  readonly pollMs: number;
  /** PostgreSQL: the idle poll while LISTEN/NOTIFY wakes the worker (catches retries and ended leases). */
  readonly safetyPollMs: number;
  /** Readiness fails when the in-process worker has claimed nothing for this long while work is due. */
  readonly stallSeconds: number;
  /** Time limit of each provider call. */
  readonly timeoutMs: number;
  readonly authCodeMaxAgeSeconds: number;
  readonly authCodeLimits: readonly AuthCodeLimit[];
  /** Sent and dead messages are deleted this many days after their last change; null keeps them. */
  readonly outboxRetentionDays: number | null;
  /** Delivery events to the schools' systems (docs/delivery.md#delivery-events). */
  readonly events: EventSettings;
}

export interface EventSettings {
  /** Subscriptions may name an http:// URL (tests, private networks). */
  readonly allowHttp: boolean;
  /** Receivers may be at a loopback, private or link-local address (tests, private networks). */
  readonly allowPrivate: boolean;
  /** A receiver failing this long without a success is `failing`. */
  readonly failingAfterMs: number;
  /** … and this long, `disabled`. */
  readonly disableAfterMs: number;
  /** Events in flight per worker, all schools together. */
  readonly concurrency: number;
  /** Events in flight per school. */
  readonly perSchool: number;
}

// PUSH_PROVIDER, SMS_PROVIDER and the variables of every provider the registry lists.
const push = providerChoice(
  'PUSH_PROVIDER',
  PUSH_PROVIDERS,
  setting('push', 'The push provider ([push providers](delivery.md#push-providers)).'),
);
const sms = providerChoice(
  'SMS_PROVIDER',
  SMS_PROVIDERS,
  setting('sms', 'The SMS provider ([SMS providers](delivery.md#sms-providers)).'),
);

const schema = z.object({
  WORKER: bool('WORKER')
    .default(true)
    .meta(
      setting(
        'delivery',
        "Run the delivery worker inside the server process ([delivery](delivery.md)). With the console on, the process that runs the worker (this one, or `npm run worker`) also runs the console's roster imports ([console](console.md#importing-a-roster)): behind a load balancer, set it `false` on the nodes that answer the calls and run the worker apart, so that an import's write never holds them.",
      ),
    ),
  ...push.env,
  ...sms.env,
  SMS_LANGUAGE: z
    .string()
    .trim()
    .toLowerCase()
    .default('ar')
    .meta(setting('authCode', 'Language of the login-code SMS: a key of the SMS templates (built in: `ar` and `en`).')),
  SMS_TEMPLATES: z
    .string()
    .trim()
    .optional()
    .meta(
      setting(
        'authCode',
        'JSON file of SMS texts per language, each with `{code}`, merged over the built-in `ar` and `en` ([notification content](delivery.md#notification-content)).',
      ),
    ),
  NOTIFICATION_TEMPLATES: z
    .string()
    .trim()
    .optional()
    .meta(
      setting(
        'delivery',
        'JSON file of push templates per `TypeNotfication` (and `*` for any other), merged over the built-in ones ([notification content](delivery.md#notification-content)).',
      ),
    ),
  URGENT_NOTIFICATION_TYPES: z
    .string()
    .trim()
    .max(4096)
    .optional()
    .meta(
      setting(
        'delivery',
        "Comma-separated `TypeNotfication` values sent during a school's quiet hours; every other type is held until they end ([quiet hours](delivery.md#quiet-hours)).",
        'none: every type is held',
      ),
    ),
  DELIVERY_MAX_ATTEMPTS: integer('DELIVERY_MAX_ATTEMPTS', 1, 100)
    .default(10)
    .meta(setting('delivery', 'Attempts before a message is `dead` ([retries](delivery.md#retries)).')),
  DELIVERY_LEASE_SECONDS: integer('DELIVERY_LEASE_SECONDS', 5, 3600)
    .default(60)
    .meta(
      setting(
        'delivery',
        'How long a claimed message is held before another worker may take it over; at least twice `DELIVERY_TIMEOUT_MS`.',
      ),
    ),
  DELIVERY_CONCURRENCY: integer('DELIVERY_CONCURRENCY', 1, 4096)
    .default(512)
    .meta(
      setting(
        'delivery',
        'Ceiling of the sends in flight per worker; below it the number adapts to each provider ([concurrency](delivery.md#concurrency)).',
      ),
    ),
  DELIVERY_CONCURRENCY_MIN: integer('DELIVERY_CONCURRENCY_MIN', 1, 4096)
    .default(4)
    .meta(setting('delivery', "Floor of each channel's adaptive limit; at most `DELIVERY_CONCURRENCY`.")),
  DELIVERY_POLL_MS: integer('DELIVERY_POLL_MS', 10, 60000)
    .default(1000)
    .meta(
      setting(
        'delivery',
        'How often an idle worker looks at the outbox, in milliseconds (work queued in the same process wakes it at once; on PostgreSQL, while the LISTEN connection is down).',
      ),
    ),
  DELIVERY_SAFETY_POLL_MS: integer('DELIVERY_SAFETY_POLL_MS', 100, 600000)
    .default(5000)
    .meta(
      setting(
        'delivery',
        'PostgreSQL: how often an idle worker looks, in milliseconds, while LISTEN/NOTIFY wakes it ([PostgreSQL at scale](delivery.md#postgresql-at-scale)).',
      ),
    ),
  EVENTS_ALLOW_HTTP: bool('EVENTS_ALLOW_HTTP')
    .default(false)
    .meta(
      setting(
        'delivery',
        "Let a school's event subscription name an `http://` URL, not only `https://` (tests, private networks; [delivery events](delivery.md#delivery-events)).",
      ),
    ),
  EVENTS_ALLOW_PRIVATE: bool('EVENTS_ALLOW_PRIVATE')
    .default(false)
    .meta(
      setting(
        'delivery',
        "Let the event worker deliver to a school's receiver at a loopback, private, link-local or other non-public address (tests, private networks); otherwise only public addresses, checked after DNS ([delivery events](delivery.md#delivery-events)).",
      ),
    ),
  EVENTS_FAILING_AFTER_MS: integer('EVENTS_FAILING_AFTER_MS', 1000, 2_592_000_000)
    .default(3_600_000)
    .meta(
      setting(
        'delivery',
        "A school's event receiver that has failed this long, in milliseconds, without a success is marked `failing`.",
      ),
    ),
  EVENTS_DISABLE_AFTER_MS: integer('EVENTS_DISABLE_AFTER_MS', 1000, 31_536_000_000)
    .default(259_200_000)
    .meta(
      setting(
        'delivery',
        "A school's event receiver that has failed this long, in milliseconds, is `disabled`: no more events are written or sent until its subscription is set again.",
      ),
    ),
  EVENTS_CONCURRENCY: integer('EVENTS_CONCURRENCY', 1, 1024)
    .default(32)
    .meta(setting('delivery', 'Delivery events in flight per worker, all schools together.')),
  EVENTS_CONCURRENCY_PER_SCHOOL: integer('EVENTS_CONCURRENCY_PER_SCHOOL', 1, 64)
    .default(4)
    .meta(setting('delivery', "Delivery events in flight to one school's receiver, across the workers.")),
  WORKER_STALL_SECONDS: integer('WORKER_STALL_SECONDS', 5, 86400)
    .default(60)
    .meta(
      setting(
        'delivery',
        '`/readyz` fails when the in-process worker has claimed nothing for this long while work is due; at least twice the longest of `DELIVERY_TIMEOUT_MS` and the polls ([health](operating.md#health)).',
      ),
    ),
  DELIVERY_TIMEOUT_MS: integer('DELIVERY_TIMEOUT_MS', 100, 120000)
    .default(10000)
    .meta(setting('delivery', 'Time limit of each provider call, in milliseconds.')),
  DELIVERY_RETRY_BASE_SECONDS: integer('DELIVERY_RETRY_BASE_SECONDS', 1, 3600)
    .default(10)
    .meta(
      setting(
        'delivery',
        'First wait after a retryable failure, doubling with each attempt ([retries](delivery.md#retries)).',
      ),
    ),
  DELIVERY_RETRY_MAX_SECONDS: integer('DELIVERY_RETRY_MAX_SECONDS', 1, 86400)
    .default(3600)
    .meta(setting('delivery', 'Longest wait between attempts; at least `DELIVERY_RETRY_BASE_SECONDS`.')),
  AUTH_CODE_MAX_AGE_SECONDS: integer('AUTH_CODE_MAX_AGE_SECONDS', 30, 86400)
    .default(600)
    .meta(setting('authCode', 'A login code not sent by then is `dead` instead of arriving late.')),
  AUTH_CODE_LIMIT_PER_PHONE: z
    .string()
    .default('1/60s,3/10m,10/24h')
    .meta(
      setting(
        'authCode',
        'AuthCode limits per phone number: `COUNT/DURATION` entries separated by commas (units `s`, `m`, `h`, `d`; at most 30 days), or `off` ([abuse limits](delivery.md#abuse-limits-on-authcode)).',
      ),
    ),
  AUTH_CODE_LIMIT_PER_CALLER: z
    .string()
    .default('30/1h')
    .meta(setting('authCode', 'AuthCode limits per calling address, written as `AUTH_CODE_LIMIT_PER_PHONE`.')),
  AUTH_CODE_LIMIT_GLOBAL: z
    .string()
    .default('1000/1h')
    .meta(
      setting(
        'authCode',
        'AuthCode limits for the whole service, written as `AUTH_CODE_LIMIT_PER_PHONE`: a budget against SMS pumping.',
      ),
    ),
  OUTBOX_RETENTION_DAYS: integerOrOff('OUTBOX_RETENTION_DAYS', 1, MAX_RETENTION_DAYS, 'days')
    .default(30)
    .meta(
      setting(
        'delivery',
        'Days after which sent and dead messages are deleted ([retention](delivery.md#retention)); it must cover the longest AuthCode limit window.',
      ),
    ),
});

/** The delivery settings as declared, providers included, for docs/configuration.md (npm run docs:config). */
export { schema as deliverySettings };

type Raw = z.infer<typeof schema>;

/** Reads the delivery settings from `env` (empty values already removed); files named there are read too. */
export function parseDeliveryConfig(
  env: Readonly<Record<string, string | undefined>>,
): { ok: true; config: DeliveryConfig } | { ok: false; problems: string[] } {
  const parsed = schema.safeParse(env);
  if (!parsed.success)
    return { ok: false, problems: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`) };
  const raw = parsed.data;
  const problems: string[] = [];
  const pushSettings = push.settings(raw, problems);
  const smsSettings = sms.settings(raw, problems);
  const smsTemplate = smsTemplateFor(raw, problems);
  const notificationTemplates = notificationTemplatesFor(raw, problems);
  const urgentTypes = urgentTypesFor(raw, problems);
  const authCodeLimits = limitsFor(raw, problems);
  if (raw.DELIVERY_LEASE_SECONDS * 1000 < 2 * raw.DELIVERY_TIMEOUT_MS) {
    problems.push(
      `DELIVERY_LEASE_SECONDS: must be at least twice DELIVERY_TIMEOUT_MS (${raw.DELIVERY_TIMEOUT_MS} ms), so that a message is never taken over while its send may still be under way`,
    );
  }
  const outboxRetentionDays = raw.OUTBOX_RETENTION_DAYS;
  const uncovered = outboxRetentionDays === null ? null : uncoveredLimitWindow(outboxRetentionDays, authCodeLimits);
  if (uncovered !== null) {
    problems.push(
      `OUTBOX_RETENTION_DAYS: must cover the longest AuthCode limit window (${uncovered} s), whose codes the limits count`,
    );
  }
  const longestQuietMs = Math.max(raw.DELIVERY_TIMEOUT_MS, raw.DELIVERY_POLL_MS, raw.DELIVERY_SAFETY_POLL_MS);
  if (raw.WORKER_STALL_SECONDS * 1000 < 2 * longestQuietMs) {
    problems.push(
      `WORKER_STALL_SECONDS: must be at least twice the longest a healthy worker goes without claiming (${longestQuietMs} ms: DELIVERY_TIMEOUT_MS, DELIVERY_POLL_MS, DELIVERY_SAFETY_POLL_MS)`,
    );
  }
  if (raw.DELIVERY_CONCURRENCY_MIN > raw.DELIVERY_CONCURRENCY) {
    problems.push('DELIVERY_CONCURRENCY_MIN: must not be more than DELIVERY_CONCURRENCY');
  }
  if (raw.DELIVERY_RETRY_MAX_SECONDS < raw.DELIVERY_RETRY_BASE_SECONDS) {
    problems.push('DELIVERY_RETRY_MAX_SECONDS: must not be less than DELIVERY_RETRY_BASE_SECONDS');
  }
  if (raw.EVENTS_DISABLE_AFTER_MS < raw.EVENTS_FAILING_AFTER_MS) {
    problems.push('EVENTS_DISABLE_AFTER_MS: must not be less than EVENTS_FAILING_AFTER_MS');
  }
  if (problems.length > 0 || pushSettings === null || smsSettings === null) return { ok: false, problems };
  return {
    ok: true,
    config: {
      worker: raw.WORKER,
      push: pushSettings,
      sms: smsSettings,
      smsTemplate,
      notificationTemplates,
      urgentTypes,
      retry: {
        maxAttempts: raw.DELIVERY_MAX_ATTEMPTS,
        baseDelayMs: raw.DELIVERY_RETRY_BASE_SECONDS * 1000,
        maxDelayMs: raw.DELIVERY_RETRY_MAX_SECONDS * 1000,
      },
      leaseSeconds: raw.DELIVERY_LEASE_SECONDS,
      concurrency: raw.DELIVERY_CONCURRENCY,
      concurrencyFloor: raw.DELIVERY_CONCURRENCY_MIN,
      pollMs: raw.DELIVERY_POLL_MS,
      safetyPollMs: raw.DELIVERY_SAFETY_POLL_MS,
      stallSeconds: raw.WORKER_STALL_SECONDS,
      timeoutMs: raw.DELIVERY_TIMEOUT_MS,
      authCodeMaxAgeSeconds: raw.AUTH_CODE_MAX_AGE_SECONDS,
      authCodeLimits,
      outboxRetentionDays,
      events: {
        allowHttp: raw.EVENTS_ALLOW_HTTP,
        allowPrivate: raw.EVENTS_ALLOW_PRIVATE,
        failingAfterMs: raw.EVENTS_FAILING_AFTER_MS,
        disableAfterMs: raw.EVENTS_DISABLE_AFTER_MS,
        concurrency: raw.EVENTS_CONCURRENCY,
        perSchool: raw.EVENTS_CONCURRENCY_PER_SCHOOL,
      },
    },
  };
}

function smsTemplateFor(raw: Raw, problems: string[]): string {
  let templates: Record<string, string> = { ...DEFAULT_SMS_TEMPLATES };
  if (raw.SMS_TEMPLATES !== undefined) {
    const read = readSmsTemplates('SMS_TEMPLATES', raw.SMS_TEMPLATES);
    if (read.ok) templates = { ...templates, ...read.value };
    else problems.push(read.problem);
  }
  const template = templates[raw.SMS_LANGUAGE];
  if (template === undefined) {
    problems.push(
      `SMS_LANGUAGE: no SMS template for "${raw.SMS_LANGUAGE}" (have ${Object.keys(templates).join(', ')}; SMS_TEMPLATES adds more)`,
    );
    return '';
  }
  return template;
}

function notificationTemplatesFor(raw: Raw, problems: string[]): Record<string, NotificationTemplate> {
  if (raw.NOTIFICATION_TEMPLATES === undefined) return { ...DEFAULT_TEMPLATES };
  const read = readNotificationTemplates('NOTIFICATION_TEMPLATES', raw.NOTIFICATION_TEMPLATES);
  if (!read.ok) {
    problems.push(read.problem);
    return { ...DEFAULT_TEMPLATES };
  }
  return { ...DEFAULT_TEMPLATES, ...read.value };
}

// Type names as SendNotificationType takes them (at most 64 characters), matched in any letter case.
function urgentTypesFor(raw: Raw, problems: string[]): ReadonlySet<string> {
  if (raw.URGENT_NOTIFICATION_TYPES === undefined) return new Set();
  const types = raw.URGENT_NOTIFICATION_TYPES.split(',')
    .map((type) => type.trim().toLowerCase())
    .filter((type) => type !== '');
  // \s covers spaces and line breaks; \p{Cc} the other control characters.
  const bad = types.filter((type) => type.length > 64 || /[\s\p{Cc}]/u.test(type));
  if (bad.length > 0)
    problems.push(
      `URGENT_NOTIFICATION_TYPES: ${bad.length} of the types are not type names (at most 64 characters, no spaces)`,
    );
  return new Set(types);
}

function limitsFor(raw: Raw, problems: string[]): AuthCodeLimit[] {
  const limits: AuthCodeLimit[] = [];
  for (const [name, scope] of [
    ['AUTH_CODE_LIMIT_PER_PHONE', 'phone'],
    ['AUTH_CODE_LIMIT_PER_CALLER', 'caller'],
    ['AUTH_CODE_LIMIT_GLOBAL', 'global'],
  ] as const) {
    const parsed = parseLimits(name, scope, raw[name]);
    if (parsed.ok) limits.push(...parsed.limits);
    else problems.push(parsed.problem);
  }
  return limits;
}
