// SendNotificationType(id, baseUrlSchool, TypeNotfication): queues a push
// notification to a student's device, its title and body from the type's
// templates (docs/design.md#what-each-operation-does, #delivery). One outbox
// row; the worker sends it afterwards, at once or when the school's quiet
// hours end; the answer is the same either way (../queue-notification.ts).
import type { SendNotificationTypeArgs } from '../../contract/generated';
import type { OperationDeps } from '../define';
import { ClientError } from '../errors';
import { schoolKey } from '../../domain';
import { queueNotification } from '../queue-notification';
import { refuse } from '../refused-call';

function required(value: string | null, wireName: string): string {
  if (value === null || value.trim() === '')
    throw new ClientError('missing_value', `A value for ${wireName} is required.`);
  return value.trim();
}

export const SendNotificationType =
  (deps: OperationDeps) =>
  async ({ id: studentId, baseUrlSchool, TypeNotfication: type }: SendNotificationTypeArgs): Promise<void> => {
    const id = required(studentId, 'id');
    const school = required(baseUrlSchool, 'baseUrlSchool');
    const kind = required(type, 'TypeNotfication');
    // A refusal after the form checks is recorded for the console (docs/console.md#refused-calls), its answer unchanged.
    await queueNotification(deps, { studentId: id, school, type: kind }, (error, reason) =>
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
      ),
    );
  };
