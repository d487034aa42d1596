// The admin API's shapes, as zod schemas: requests are validated with them
// and the OpenAPI document is generated from them, so the two cannot drift.
// The records' schemas are the collections' own (src/store/collections/),
// which the store checks every write against too, so that the admin API and
// the importer accept the same records (docs/operating.md#one-set-of-rules);
// the store still checks what only it can (calendar dates, a student's
// school being stored). A list's filters are the collection's too.
import { z } from 'zod';
import { OUTBOX_CHANNELS } from '../shared/outbox-channel';

export const Paging = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(50).describe('Items per page, 1 to 500.'),
  offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0).describe('Items to skip.'),
});

export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    total: z.number().int().describe('Items matching the filters, all pages together.'),
    limit: z.number().int(),
    offset: z.number().int(),
    nextOffset: z
      .number()
      .int()
      .nullable()
      .describe(
        'Offset of the next page; null on the last one. A page may hold fewer than limit items (about 1 MiB at most): continue from here, not from offset + limit.',
      ),
  });
}

export const ErrorBody = z
  .object({
    error: z.object({
      code: z
        .string()
        .describe('Stable, for scripts: unauthorized, invalid_request, not_found, conflict, invalid_record, ...'),
      message: z.string().describe('For people: what is wrong and what to do.'),
      details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    }),
  })
  .meta({ id: 'Error' });

// The outbox.

export const OutboxChannelParam = z.enum(OUTBOX_CHANNELS).describe('push: notifications to devices; sms: login codes.');
const OutboxStatus = z.enum(['queued', 'sending', 'sent', 'failed', 'dead', 'uncertain']);

export const OutboxListQuery = z.strictObject({
  status: OutboxStatus.optional(),
  studentId: z.string().min(1).optional().describe('push only.'),
  deviceId: z.string().min(1).optional().describe('push only.'),
});

const deliveryFields = {
  id: z.string(),
  status: OutboxStatus,
  attempts: z.number().int(),
  nextAttemptAt: z.string(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  sentAt: z.string().nullable(),
};

export const PushMessage = z
  .object({
    ...deliveryFields,
    deviceId: z.string(),
    studentId: z.string(),
    type: z.string(),
    title: z.string(),
    body: z.string(),
    data: z.record(z.string(), z.string()),
    options: z
      .object({
        expiresAt: z.string().nullable(),
        android: z.record(z.string(), z.union([z.string(), z.number()])),
        apns: z.record(z.string(), z.union([z.string(), z.number()])),
        webpush: z.record(z.string(), z.string()),
      })
      .nullable()
      .describe(
        'How it travels on each platform and until when it is worth sending, resolved when queued; null for a message queued before there were options.',
      ),
    heldUntil: z
      .string()
      .nullable()
      .describe("Held through the school's quiet hours or scheduled, not yet tried: when it becomes due."),
  })
  .meta({ id: 'PushMessage' });

export const SmsMessage = z
  .object({
    ...deliveryFields,
    phone: z.string().describe('Masked: only the last three digits are shown.'),
    hasCode: z.boolean().describe('The code itself is never shown; it is erased once delivered or given up.'),
  })
  .meta({ id: 'SmsMessage' });

export const OutboxStats = z
  .object({
    channels: z.array(
      z.object({
        channel: OutboxChannelParam,
        counts: z.record(OutboxStatus, z.number().int()),
        oldestPendingAt: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'OutboxStats' });

export const Requeued = z.object({ channel: OutboxChannelParam, id: z.string(), status: z.literal('queued') });
export const RequeuedCount = z.object({ channel: OutboxChannelParam, requeued: z.number().int() });

// The audit trail of reads of personal data.

const auditTime = (what: string) =>
  z.iso
    .datetime({ offset: true })
    .transform((value) => new Date(value).toISOString())
    .describe(`${what}: an ISO 8601 time with Z or an offset.`);

export const AuditListQuery = z.strictObject({
  from: auditTime('Entries recorded at or after this time').optional(),
  to: auditTime('Entries recorded before this time').optional(),
  endpoint: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe('Endpoint as the contract names it, without .asmx, such as NotificationNotes (as in the metrics).'),
  operation: z.string().min(1).max(128).optional().describe('Operation name, such as GetStudentSchool.'),
  outcome: z.enum(['allowed', 'refused']).optional(),
  address: z.string().min(1).max(128).optional().describe("The caller's address, as TRUST_PROXY resolves it."),
  user: z.string().min(1).max(128).optional().describe('The Basic user of the call.'),
  subject: z.string().min(1).max(512).optional().describe('The student, school, device or class id read.'),
});

export const AuditEntry = z
  .object({
    id: z.string(),
    at: z.string().describe('When the call was made (ISO 8601, UTC).'),
    address: z.string().nullable(),
    user: z.string().nullable().describe('The Basic user, when the call carried one that was accepted.'),
    endpoint: z.string(),
    operation: z.string(),
    subjectKind: z.enum(['student', 'school', 'device', 'class']).nullable(),
    subject: z
      .string()
      .nullable()
      .describe(
        'The id read; one longer than any valid id of its kind is kept cut to that length (subjectLength and subjectSha256 then say so).',
      ),
    subjectLength: z
      .number()
      .int()
      .nullable()
      .describe('The full length of a subject kept cut; null when it is kept whole.'),
    subjectSha256: z
      .string()
      .nullable()
      .describe('SHA-256 (hex, of its UTF-8) of the whole of a subject kept cut; null when it is kept whole.'),
    outcome: z.enum(['allowed', 'refused']),
    reason: z
      .string()
      .nullable()
      .describe(
        'Why it was refused: network, auth, limit, enumeration, or summary for a summary entry; null when allowed.',
      ),
    omitted: z
      .number()
      .int()
      .nullable()
      .describe(
        "A summary entry: the caller's refusals in that minute counted instead of kept one by one, past the first 60 (operation * when of several); null on every other entry.",
      ),
  })
  .meta({ id: 'AuditEntry' });
