// The delivery part of the configuration (providers, worker, retries, AuthCode
// limits, templates), read from the same environment as src/config.ts and
// reported the same way: every problem, each naming its variable.
import { z } from 'zod';
import { bool, integer, integerOrOff } from '../../config-values';
import { DEFAULT_TEMPLATES, type NotificationTemplate } from '../../operations';
import type { AuthCodeLimit } from '../../store';
import { FCM_BASE_URL } from '../push/fcm/fcm-provider';
import { parseServiceAccount, type ServiceAccount } from '../push/fcm/service-account';
import type { RetryPolicy } from '../retry-policy';
import { fillTemplate } from '../sms/http-gateway-provider';
import { DEFAULT_SMS_TEMPLATES } from '../sms/sms-text';
import { TWILIO_BASE_URL } from '../sms/twilio-provider';
import { MAX_RETENTION_DAYS, uncoveredLimitWindow } from '../outbox-retention';
import { readNotificationTemplates, readSmsTemplates, readTextFile } from './json-files';
import { parseLimits } from './limit-syntax';

export type PushSettings =
  | { readonly provider: 'log' }
  | {
      readonly provider: 'fcm';
      readonly account: ServiceAccount;
      readonly projectId: string;
      readonly baseUrl: string;
      readonly tokenUrl: string | null;
      /** HTTP/2 sessions to an https:// FCM at most. */
      readonly http2Sessions: number;
    }
  | { readonly provider: 'webhook'; readonly url: string; readonly token: string | null };

export type SmsSettings =
  | { readonly provider: 'log' }
  | {
      readonly provider: 'http';
      readonly url: string;
      readonly method: 'GET' | 'POST';
      readonly format: 'form' | 'json';
      readonly headers: Readonly<Record<string, string>>;
      readonly bodyTemplate: string;
      readonly idempotencyHeader: string | null;
    }
  | { readonly provider: 'twilio'; readonly accountSid: string; readonly authToken: string; readonly from: string; readonly baseUrl: string };

export interface DeliveryConfig {
  /** Run the worker inside the server process. */
  readonly worker: boolean;
  readonly push: PushSettings;
  readonly sms: SmsSettings;
  /** The login-code text in SMS_LANGUAGE, with `{code}`. */
  readonly smsTemplate: string;
  readonly notificationTemplates: Readonly<Record<string, NotificationTemplate>>;
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
}

const DEFAULT_FORM_BODY = 'to={phone}&text={text}';
const DEFAULT_JSON_BODY = '{"to":"{phone}","text":"{text}"}';

const url = (name: string) =>
  z
    .string()
    .trim()
    .refine((v) => /^https?:\/\/[^\s/]+/.test(v) && URL.canParse(v), `${name} must be an http:// or https:// URL`);

const schema = z.object({
  WORKER: bool('WORKER').default(true),
  PUSH_PROVIDER: z.enum(['log', 'fcm', 'webhook'], { error: 'PUSH_PROVIDER must be log, fcm or webhook' }).default('log'),
  FCM_CREDENTIALS: z.string().trim().optional(),
  FCM_PROJECT_ID: z.string().trim().optional(),
  FCM_BASE_URL: url('FCM_BASE_URL').default(FCM_BASE_URL),
  FCM_TOKEN_URL: url('FCM_TOKEN_URL').optional(),
  FCM_HTTP2_SESSIONS: integer('FCM_HTTP2_SESSIONS', 1, 64).default(4),
  PUSH_WEBHOOK_URL: url('PUSH_WEBHOOK_URL').optional(),
  PUSH_WEBHOOK_TOKEN: z.string().trim().optional(),
  SMS_PROVIDER: z.enum(['log', 'http', 'twilio'], { error: 'SMS_PROVIDER must be log, http or twilio' }).default('log'),
  SMS_HTTP_URL: url('SMS_HTTP_URL').optional(),
  SMS_HTTP_METHOD: z
    .string()
    .trim()
    .toUpperCase()
    .pipe(z.enum(['GET', 'POST'], { error: 'SMS_HTTP_METHOD must be POST or GET' }))
    .default('POST'),
  SMS_HTTP_FORMAT: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(['form', 'json'], { error: 'SMS_HTTP_FORMAT must be form or json' }))
    .default('form'),
  SMS_HTTP_HEADERS: z.string().optional(),
  SMS_HTTP_BODY: z.string().optional(),
  SMS_HTTP_IDEMPOTENCY_HEADER: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[!#$%&'*+.^_`|~0-9a-z-]+$/, 'SMS_HTTP_IDEMPOTENCY_HEADER must be an HTTP header name, such as Idempotency-Key')
    .optional(),
  TWILIO_ACCOUNT_SID: z.string().trim().optional(),
  TWILIO_AUTH_TOKEN: z.string().trim().optional(),
  TWILIO_FROM: z.string().trim().optional(),
  TWILIO_BASE_URL: url('TWILIO_BASE_URL').default(TWILIO_BASE_URL),
  SMS_LANGUAGE: z.string().trim().toLowerCase().default('ar'),
  SMS_TEMPLATES: z.string().trim().optional(),
  NOTIFICATION_TEMPLATES: z.string().trim().optional(),
  DELIVERY_MAX_ATTEMPTS: integer('DELIVERY_MAX_ATTEMPTS', 1, 100).default(10),
  DELIVERY_LEASE_SECONDS: integer('DELIVERY_LEASE_SECONDS', 5, 3600).default(60),
  DELIVERY_CONCURRENCY: integer('DELIVERY_CONCURRENCY', 1, 4096).default(512),
  DELIVERY_CONCURRENCY_MIN: integer('DELIVERY_CONCURRENCY_MIN', 1, 4096).default(4),
  DELIVERY_POLL_MS: integer('DELIVERY_POLL_MS', 10, 60000).default(1000),
  DELIVERY_SAFETY_POLL_MS: integer('DELIVERY_SAFETY_POLL_MS', 100, 600000).default(5000),
  WORKER_STALL_SECONDS: integer('WORKER_STALL_SECONDS', 5, 86400).default(60),
  DELIVERY_TIMEOUT_MS: integer('DELIVERY_TIMEOUT_MS', 100, 120000).default(10000),
  DELIVERY_RETRY_BASE_SECONDS: integer('DELIVERY_RETRY_BASE_SECONDS', 1, 3600).default(10),
  DELIVERY_RETRY_MAX_SECONDS: integer('DELIVERY_RETRY_MAX_SECONDS', 1, 86400).default(3600),
  AUTH_CODE_MAX_AGE_SECONDS: integer('AUTH_CODE_MAX_AGE_SECONDS', 30, 86400).default(600),
  AUTH_CODE_LIMIT_PER_PHONE: z.string().default('1/60s,3/10m,10/24h'),
  AUTH_CODE_LIMIT_PER_CALLER: z.string().default('30/1h'),
  AUTH_CODE_LIMIT_GLOBAL: z.string().default('1000/1h'),
  OUTBOX_RETENTION_DAYS: integerOrOff('OUTBOX_RETENTION_DAYS', 1, MAX_RETENTION_DAYS, 'days').default(30),
});

type Raw = z.infer<typeof schema>;

/** Reads the delivery settings from `env` (empty values already removed); files named there are read too. */
export function parseDeliveryConfig(
  env: Readonly<Record<string, string | undefined>>,
): { ok: true; config: DeliveryConfig } | { ok: false; problems: string[] } {
  const parsed = schema.safeParse(env);
  if (!parsed.success) return { ok: false, problems: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`) };
  const raw = parsed.data;
  const problems: string[] = [];
  const push = pushSettings(raw, problems);
  const sms = smsSettings(raw, problems);
  const smsTemplate = smsTemplateFor(raw, problems);
  const notificationTemplates = notificationTemplatesFor(raw, problems);
  const authCodeLimits = limitsFor(raw, problems);
  if (raw.DELIVERY_LEASE_SECONDS * 1000 < 2 * raw.DELIVERY_TIMEOUT_MS) {
    problems.push(
      `DELIVERY_LEASE_SECONDS: must be at least twice DELIVERY_TIMEOUT_MS (${raw.DELIVERY_TIMEOUT_MS} ms), so that a message is never taken over while its send may still be under way`,
    );
  }
  const outboxRetentionDays = raw.OUTBOX_RETENTION_DAYS;
  const uncovered = outboxRetentionDays === null ? null : uncoveredLimitWindow(outboxRetentionDays, authCodeLimits);
  if (uncovered !== null) {
    problems.push(`OUTBOX_RETENTION_DAYS: must cover the longest AuthCode limit window (${uncovered} s), whose codes the limits count`);
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
  if (problems.length > 0 || push === null || sms === null) return { ok: false, problems };
  return {
    ok: true,
    config: {
      worker: raw.WORKER,
      push,
      sms,
      smsTemplate,
      notificationTemplates,
      retry: { maxAttempts: raw.DELIVERY_MAX_ATTEMPTS, baseDelayMs: raw.DELIVERY_RETRY_BASE_SECONDS * 1000, maxDelayMs: raw.DELIVERY_RETRY_MAX_SECONDS * 1000 },
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
    },
  };
}

function pushSettings(raw: Raw, problems: string[]): PushSettings | null {
  if (raw.PUSH_PROVIDER === 'log') return { provider: 'log' };
  if (raw.PUSH_PROVIDER === 'webhook') {
    if (raw.PUSH_WEBHOOK_URL === undefined) return missing(problems, 'PUSH_WEBHOOK_URL', 'PUSH_PROVIDER=webhook');
    return { provider: 'webhook', url: raw.PUSH_WEBHOOK_URL, token: raw.PUSH_WEBHOOK_TOKEN ?? null };
  }
  if (raw.FCM_CREDENTIALS === undefined) return missing(problems, 'FCM_CREDENTIALS', 'PUSH_PROVIDER=fcm', ' (the path of a service-account key file)');
  const text = readTextFile('FCM_CREDENTIALS', raw.FCM_CREDENTIALS);
  if (!text.ok) {
    problems.push(text.problem);
    return null;
  }
  const key = parseServiceAccount(text.value);
  if (!key.ok) {
    problems.push(`FCM_CREDENTIALS: ${raw.FCM_CREDENTIALS} ${key.problem}`);
    return null;
  }
  const projectId = raw.FCM_PROJECT_ID ?? key.account.projectId;
  if (projectId === null) return missing(problems, 'FCM_PROJECT_ID', 'a key file without project_id');
  return {
    provider: 'fcm',
    account: key.account,
    projectId,
    baseUrl: raw.FCM_BASE_URL,
    tokenUrl: raw.FCM_TOKEN_URL ?? null,
    http2Sessions: raw.FCM_HTTP2_SESSIONS,
  };
}

function smsSettings(raw: Raw, problems: string[]): SmsSettings | null {
  if (raw.SMS_PROVIDER === 'log') return { provider: 'log' };
  if (raw.SMS_PROVIDER === 'twilio') {
    const absent = (['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_FROM'] as const).filter((name) => raw[name] === undefined);
    if (absent.length > 0) return missing(problems, absent.join(', '), 'SMS_PROVIDER=twilio');
    return {
      provider: 'twilio',
      accountSid: raw.TWILIO_ACCOUNT_SID as string,
      authToken: raw.TWILIO_AUTH_TOKEN as string,
      from: raw.TWILIO_FROM as string,
      baseUrl: raw.TWILIO_BASE_URL,
    };
  }
  if (raw.SMS_HTTP_URL === undefined) return missing(problems, 'SMS_HTTP_URL', 'SMS_PROVIDER=http');
  const format = raw.SMS_HTTP_FORMAT;
  const bodyTemplate = raw.SMS_HTTP_BODY ?? (format === 'json' ? DEFAULT_JSON_BODY : DEFAULT_FORM_BODY);
  const before = problems.length;
  if (raw.SMS_HTTP_METHOD === 'GET' && format === 'json')
    problems.push('SMS_HTTP_FORMAT: json needs SMS_HTTP_METHOD=POST (a GET sends the template as its query string)');
  if (!bodyTemplate.includes('{text}') || !/\{phone(_digits)?\}/.test(bodyTemplate)) {
    problems.push('SMS_HTTP_BODY: the template must contain {text} and {phone} (or {phone_digits})');
  } else if (format === 'json' && !isJsonTemplate(bodyTemplate)) {
    problems.push(`SMS_HTTP_BODY: with SMS_HTTP_FORMAT=json the template must be a JSON document once filled, such as ${DEFAULT_JSON_BODY}`);
  }
  const headers = parseHeaders(raw.SMS_HTTP_HEADERS, problems);
  if (problems.length > before || headers === null) return null;
  return {
    provider: 'http',
    url: raw.SMS_HTTP_URL,
    method: raw.SMS_HTTP_METHOD,
    format,
    headers,
    bodyTemplate,
    idempotencyHeader: raw.SMS_HTTP_IDEMPOTENCY_HEADER ?? null,
  };
}

function isJsonTemplate(template: string): boolean {
  try {
    JSON.parse(fillTemplate(template, { id: 'id', phone: '+10000000000', text: 'text "quoted"' }, (v) => JSON.stringify(v).slice(1, -1)));
    return true;
  } catch {
    return false;
  }
}

function parseHeaders(text: string | undefined, problems: string[]): Record<string, string> | null {
  if (text === undefined) return {};
  const result = z.record(z.string(), z.string()).safeParse(safeJson(text));
  if (!result.success) {
    problems.push('SMS_HTTP_HEADERS: must be a JSON object of header names and text values, such as {"X-Api-Key":"…"}');
    return null;
  }
  return result.data;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
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
    problems.push(`SMS_LANGUAGE: no SMS template for "${raw.SMS_LANGUAGE}" (have ${Object.keys(templates).join(', ')}; SMS_TEMPLATES adds more)`);
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

function missing(problems: string[], names: string, because: string, hint = ''): null {
  problems.push(`${names}: required with ${because}${hint}`);
  return null;
}
