// Queueing a notification for later, and cancelling it before it is sent
// (docs/operating.md#scheduled-notifications): what SendNotificationType
// queues, with a time to send it at. The school's quiet hours still apply: a
// non-urgent type due during them is held until they end. A cancel is refused
// once a worker has claimed the message.
import { z } from 'zod';
import type { QueueNotification } from '../domain/queued-notification';
import type { AdminStore } from '../store';
import { AdminError } from './errors';
import { route, type AdminRoute } from './route-table';
import { ErrorBody } from './schemas';

const TAG = 'Notifications';
/** A notification a year ahead is a typing mistake; a school plans a term at most. */
const MAX_AHEAD_DAYS = 366;

const NewNotification = z
  .strictObject({
    studentId: z.string().trim().min(1).max(128).describe('The student whose device gets the notification.'),
    type: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .describe('The notification type, as SendNotificationType takes TypeNotfication (absence, note, ...).'),
    sendAt: z.iso
      .datetime({ offset: true })
      .optional()
      .describe(
        'When to send it (ISO 8601 with a zone, at most a year ahead); left out or past: now. Quiet hours still hold a non-urgent type.',
      ),
  })
  .meta({ id: 'NewNotification' });

const QueuedNotification = z
  .object({
    id: z.string().describe('The outbox id: GET /outbox/push/{id} follows it.'),
    dueAt: z.string().describe('When it becomes due.'),
    heldUntil: z.string().nullable().describe("Set when the school's quiet hours hold it: when they end."),
  })
  .meta({ id: 'QueuedNotification' });

// The operation's refusals, as the admin API answers them.
const REFUSAL_STATUS: Readonly<Record<string, number>> = {
  student_unknown: 404,
  no_push_device: 422,
  type_too_long: 400,
};

export function notificationRoutes(store: AdminStore, queue: QueueNotification, now: () => Date): AdminRoute[] {
  return [
    route({
      method: 'post',
      path: '/notifications',
      operationId: 'queue_notification',
      summary: 'Queue a push notification to a student, now or at a later time',
      tag: TAG,
      body: NewNotification,
      responses: {
        202: { description: 'Queued', schema: QueuedNotification },
        404: { description: 'No such student', schema: ErrorBody },
        422: { description: 'The student has no device to push to, or sendAt is too far ahead', schema: ErrorBody },
      },
      async handle({ body }) {
        const sendAt = body.sendAt === undefined ? undefined : new Date(body.sendAt);
        if (sendAt !== undefined && sendAt.getTime() - now().getTime() > MAX_AHEAD_DAYS * 86_400_000)
          throw new AdminError(422, 'too_far_ahead', `sendAt must be at most ${MAX_AHEAD_DAYS} days ahead.`);
        const answer = await queue({ studentId: body.studentId, type: body.type, sendAt });
        if (!answer.ok) throw new AdminError(REFUSAL_STATUS[answer.code] ?? 422, answer.code, answer.message);
        const { ok: _ok, ...queued } = answer;
        return {
          status: 202,
          body: queued,
          headers: { Location: `/admin/api/v1/outbox/push/${encodeURIComponent(queued.id)}` },
        };
      },
    }),
    route({
      method: 'delete',
      path: '/notifications/{id}',
      operationId: 'cancel_notification',
      summary: 'Cancel a push notification not yet claimed by a worker (held or scheduled)',
      tag: TAG,
      params: z.strictObject({ id: z.string().min(1).max(64).describe('The outbox id.') }),
      responses: {
        204: { description: 'Cancelled: removed from the outbox' },
        404: { description: 'No such message', schema: ErrorBody },
        409: {
          description: 'A worker has claimed it (or it was tried, sent or given up): too late',
          schema: ErrorBody,
        },
      },
      async handle({ params }) {
        const result = await store.cancelPushNotification(params.id);
        if (result === 'not_found') throw new AdminError(404, 'not_found', `No push message ${params.id}.`);
        if (result === 'claimed')
          throw new AdminError(
            409,
            'claimed',
            `The push message ${params.id} was already claimed by a worker; it can no longer be cancelled.`,
          );
        return { status: 204 };
      },
    }),
  ];
}
