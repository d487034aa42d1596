// Queueing one push notification to a student's device: what
// SendNotificationType does on the wire, and what the admin API's
// POST /admin/api/v1/notifications does with a time to send it at. The
// message's text comes from the type's templates, its options from the type
// and the school (src/domain/message-options.ts), and its due time from the
// school's quiet hours (src/domain/school-time.ts): a non-urgent type queued
// during them is held until they end (docs/delivery.md#quiet-hours).
import { parseQuietHours, quietHoursEnd, renderNotification, resolveOptions, schoolKey } from '../domain';
import type { QueuedNotification, QueueNotification } from '../domain/queued-notification';
import type { OperationDeps } from './define';
import { ClientError } from './errors';
import { echoed } from '../shared/echo';
import { holdsNul } from '../shared/nul';

/** What queueing needs: the admin API's queue has no refused calls to record. */
export type QueueDeps = Pick<OperationDeps, 'store' | 'rules'>;

export const MAX_TYPE_LENGTH = 64;

export interface NotificationRequest {
  readonly studentId: string;
  /** The school the caller says the student is in (checked); null: not checked (the admin API). */
  readonly school: string | null;
  readonly type: string;
  /** Not before this time (the admin API's sendAt); left out, now. */
  readonly sendAt?: Date;
}

/** The student's school holds notifications of `type` queued at `at` until this time, or null. */
function quietUntil(
  at: Date,
  student: { readonly quietHours: string | null; readonly schoolTimeZone: string },
  urgent: boolean,
): Date | null {
  if (urgent || student.quietHours === null) return null;
  const quiet = parseQuietHours(student.quietHours);
  return quiet === null ? null : quietHoursEnd(at, student.schoolTimeZone, quiet);
}

/** How a refusal after the form checks leaves: thrown as it is, unless the caller records it first (`reason`: a finer one than the error's code). */
export type Refusal = (error: ClientError, reason?: string) => never;

const throwIt: Refusal = (error) => {
  throw error;
};

export async function queueNotification(
  { store, rules }: QueueDeps,
  request: NotificationRequest,
  refused: Refusal = throwIt,
): Promise<QueuedNotification> {
  const { studentId: id, type: kind } = request;
  if (kind.length > MAX_TYPE_LENGTH)
    throw new ClientError('type_too_long', `TypeNotfication must be at most ${MAX_TYPE_LENGTH} characters.`);
  const unknown = () => refused(new ClientError('student_unknown', `No student with id ${echoed(id)}.`));
  // An id holding a NUL matches no student (src/shared/nul.ts); a school holding one is not the student's, below.
  if (holdsNul(id)) return unknown();
  const student = await store.records.findStudent(id);
  if (student === null) return unknown();
  if (request.school !== null && student.schoolKey !== schoolKey(request.school)) {
    return refused(
      new ClientError(
        'student_not_in_school',
        `Student ${echoed(id)} does not belong to the school ${echoed(request.school)}.`,
      ),
    );
  }
  if (student.deviceId === null || student.pushToken === null) {
    return refused(
      new ClientError('no_push_device', `Student ${echoed(id)} has no device registered for push notifications.`),
      student.deviceId === null ? 'no_device' : 'no_token',
    );
  }
  // A type holding a NUL could not be stored on PostgreSQL: nothing is queued, on either store, and the
  // caller is answered as for an unknown student (docs/design.md#a-nul-in-a-parameter). A mistake in
  // the field's form, not kept for the console: the student is known, and not what went wrong.
  if (holdsNul(kind))
    return refused(new ClientError('student_unknown', `No student with id ${echoed(id)}.`), 'type_nul');
  const now = rules.now?.() ?? new Date();
  const requested = request.sendAt !== undefined && request.sendAt > now ? request.sendAt : now;
  const held = quietUntil(requested, student, rules.urgentTypes?.has(kind.toLowerCase()) === true);
  const due = held ?? requested;
  const text = renderNotification(kind, student.fullName, rules.templates);
  const options = resolveOptions(kind, due, student.schoolTimeZone, {
    templates: rules.templates,
    school: student.pushOptions,
  });
  const messageId = await store.outbox.enqueuePushNotification({
    deviceId: student.deviceId,
    studentId: student.studentId,
    type: kind,
    title: text.title,
    body: text.body,
    schoolKey: student.schoolKey,
    data: {
      type: kind,
      studentId: student.studentId,
      school: student.schoolKey,
      title_ar: text.ar.title,
      body_ar: text.ar.body,
      title_en: text.en.title,
      body_en: text.en.body,
    },
    // Due now is the store's now (its clock writes the row); only a later time is carried.
    ...(due > now ? { dueAt: due.toISOString() } : {}),
    options,
  });
  rules.onQueued?.('push');
  return { id: messageId, dueAt: due.toISOString(), heldUntil: held === null ? null : held.toISOString() };
}

/** The admin API's way in (POST /admin/api/v1/notifications): the caller's mistakes as values, with their codes. */
export function notificationQueue(deps: QueueDeps): QueueNotification {
  return async (request) => {
    try {
      return { ok: true, ...(await queueNotification(deps, { ...request, school: null })) };
    } catch (error) {
      if (error instanceof ClientError) return { ok: false, code: error.code, message: error.message };
      throw error;
    }
  };
}
