// SendNotificationType(id, baseUrlSchool, TypeNotfication): queues a push
// notification to a student's device, its title and body from the type's
// templates (docs/design.md#what-each-operation-does, #delivery). One outbox
// row; the worker sends it afterwards.
import type { SendNotificationTypeArgs } from '../../contract/generated';
import { renderNotification, schoolKey } from '../../domain';
import type { OperationDeps } from '../define';
import { ClientError } from '../errors';

const MAX_TYPE_LENGTH = 64;

function required(value: string | null, wireName: string): string {
  if (value === null || value.trim() === '')
    throw new ClientError('missing_value', `A value for ${wireName} is required.`);
  return value.trim();
}

export const SendNotificationType =
  ({ store, rules }: OperationDeps) =>
  async ({ id: studentId, baseUrlSchool, TypeNotfication: type }: SendNotificationTypeArgs): Promise<void> => {
    const id = required(studentId, 'id');
    const school = required(baseUrlSchool, 'baseUrlSchool');
    const kind = required(type, 'TypeNotfication');
    if (kind.length > MAX_TYPE_LENGTH)
      throw new ClientError('type_too_long', `TypeNotfication must be at most ${MAX_TYPE_LENGTH} characters.`);

    const student = await store.records.findStudent(id);
    if (student === null) throw new ClientError('student_unknown', `No student with id ${id}.`);
    if (student.schoolKey !== schoolKey(school)) {
      throw new ClientError('student_not_in_school', `Student ${id} does not belong to the school ${school}.`);
    }
    if (student.deviceId === null || student.pushToken === null) {
      throw new ClientError('no_push_device', `Student ${id} has no device registered for push notifications.`);
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
