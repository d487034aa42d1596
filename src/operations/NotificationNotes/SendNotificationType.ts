// SendNotificationType(id, baseUrlSchool, TypeNotfication): queues a push
// notification to a student's device, its title and body from the type's
// templates (docs/design.md#what-each-operation-does, #delivery). One outbox
// row; the worker sends it afterwards.
import type { SendNotificationTypeArgs } from '../../contract/generated';
import { renderNotification, schoolKey } from '../../domain';
import type { OperationDeps } from '../define';
import { ClientError } from '../errors';
import { refuse } from '../refused-call';

const MAX_TYPE_LENGTH = 64;

function required(value: string | null, wireName: string): string {
  if (value === null || value.trim() === '')
    throw new ClientError('missing_value', `A value for ${wireName} is required.`);
  return value.trim();
}

export const SendNotificationType =
  (deps: OperationDeps) =>
  async ({ id: studentId, baseUrlSchool, TypeNotfication: type }: SendNotificationTypeArgs): Promise<void> => {
    const { store, rules } = deps;
    const id = required(studentId, 'id');
    const school = required(baseUrlSchool, 'baseUrlSchool');
    const kind = required(type, 'TypeNotfication');
    if (kind.length > MAX_TYPE_LENGTH)
      throw new ClientError('type_too_long', `TypeNotfication must be at most ${MAX_TYPE_LENGTH} characters.`);

    // A refusal from here on is recorded for the console (docs/console.md#refused-calls), its answer unchanged.
    const refused = (error: ClientError, reason?: string) =>
      refuse(
        deps,
        {
          operation: 'SendNotificationType',
          ...(reason === undefined ? {} : { reason }),
          studentId: id,
          schoolKey: schoolKey(school),
          type: kind,
          phone: null,
        },
        error,
      );
    const student = await store.records.findStudent(id);
    if (student === null) return refused(new ClientError('student_unknown', `No student with id ${id}.`));
    if (student.schoolKey !== schoolKey(school)) {
      return refused(
        new ClientError('student_not_in_school', `Student ${id} does not belong to the school ${school}.`),
      );
    }
    if (student.deviceId === null || student.pushToken === null) {
      return refused(
        new ClientError('no_push_device', `Student ${id} has no device registered for push notifications.`),
        student.deviceId === null ? 'no_device' : 'no_token',
      );
    }
    const text = renderNotification(kind, student.fullName, rules.templates);
    await store.outbox.enqueuePushNotification({
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
    });
    rules.onQueued?.('push');
  };
