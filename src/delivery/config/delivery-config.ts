// The delivery part of the configuration (providers, worker, retries, AuthCode
// limits, templates), read from the same environment as src/config.ts and
// reported the same way: every problem, each naming its variable.
import { z } from 'zod';
import { bool, integer, integerOrOff } from '../../config-values';
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

// PUSH_PROVIDER, SMS_PROVIDER and the variables of every provider the registry lists.
const push = providerChoice('PUSH_PROVIDER', PUSH_PROVIDERS);
const sms = providerChoice('SMS_PROVIDER', SMS_PROVIDERS);

const schema = z.object({
  WORKER: bool('WORKER').default(true),
  ...push.env,
  ...sms.env,
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
  const pushSettings = push.settings(raw, problems);
  const smsSettings = sms.settings(raw, problems);
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
  if (problems.length > 0 || pushSettings === null || smsSettings === null) return { ok: false, problems };
  return {
    ok: true,
    config: {
      worker: raw.WORKER,
      push: pushSettings,
      sms: smsSettings,
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
