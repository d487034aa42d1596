import { schoolKey } from '../domain';
import type { AuthCodeLimit, Store } from '../store';
import { refusalError } from './auth-code-refusal';
import { ClientError } from './errors';
import { renderNotification, type NotificationTemplate } from './notification-templates';
import { normalisePhone, type PhoneRules } from './phone';
import type { Operations } from './types';

type WriteOperations = Pick<Operations, 'sendAuthCode' | 'queueNotification'>;

export interface WriteOperationRules {
  readonly phone: PhoneRules;
  readonly templates?: Readonly<Record<string, NotificationTemplate>>;
  /** Abuse limits on AuthCode, counted in the store; none given: no limit. */
  readonly authCodeLimits?: readonly AuthCodeLimit[];
  /** Told after a message was queued, so that a worker in this process can send it at once. */
  readonly onQueued?: (channel: 'push' | 'sms') => void;
}

const CODE_PATTERN = /^[0-9]{4,10}$/;
const MAX_TYPE_LENGTH = 64;

function required(value: string | null, wireName: string): string {
  if (value === null || value.trim() === '') throw new ClientError('missing_value', `A value for ${wireName} is required.`);
  return value.trim();
}

/**
 * The operations that accept work. Each validates, then writes one queued
 * outbox row in one transaction (AuthCode's together with its abuse-limit
 * count); delivery happens elsewhere.
 */
export function createWriteOperations(store: Store, rules: WriteOperationRules): WriteOperations {
  return {
    async sendAuthCode({ code, phone }, context) {
      // Never echo the code back: it is a secret.
      if (code === null || !CODE_PATTERN.test(code)) throw new ClientError('code_invalid', 'The code must be 4 to 10 digits.');
      const e164 = normalisePhone(phone, rules.phone);
      const admission = await store.admitAuthCode({ phone: e164, code, callerAddress: context.callerAddress }, rules.authCodeLimits ?? []);
      if (!admission.admitted) throw refusalError(admission);
      rules.onQueued?.('sms');
    },

    async queueNotification({ studentId, schoolBaseUrl, type }) {
      const id = required(studentId, 'id');
      const school = required(schoolBaseUrl, 'baseUrlSchool');
      const kind = required(type, 'TypeNotfication');
      if (kind.length > MAX_TYPE_LENGTH) throw new ClientError('type_too_long', `TypeNotfication must be at most ${MAX_TYPE_LENGTH} characters.`);

      const student = await store.findStudent(id);
      if (student === null) throw new ClientError('student_unknown', `No student with id ${id}.`);
      if (student.schoolKey !== schoolKey(school)) {
        throw new ClientError('student_not_in_school', `Student ${id} does not belong to the school ${school}.`);
      }
      if (student.deviceId === null || student.pushToken === null) {
        throw new ClientError('no_push_device', `Student ${id} has no device registered for push notifications.`);
      }
      const text = renderNotification(kind, student.fullName, rules.templates);
      await store.enqueuePushNotification({
        deviceId: student.deviceId,
        studentId: student.studentId,
        type: kind,
        title: text.title,
        body: text.body,
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
    },
  };
}
