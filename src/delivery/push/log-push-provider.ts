import type { Logger } from '../../log';
import { pushProvider } from '../provider-descriptor';
import { sent, type PushMessage, type PushProvider, type SendResult } from '../provider';

/** The default: nothing leaves the machine; the log shows what would have been sent. */
export function createLogPushProvider(logger: Logger): PushProvider {
  return {
    name: logPush.name,
    retriesUncertain: true,
    send(message: PushMessage): Promise<SendResult> {
      logger.info(
        {
          notificationId: message.id,
          studentId: message.data.studentId,
          type: message.data.type,
          platform: message.platform,
          title: message.title,
        },
        'push notification delivered to the log (PUSH_PROVIDER=log)',
      );
      return Promise.resolve(sent());
    },
  };
}

/** PUSH_PROVIDER=log: no variables of its own. */
export const logPush = pushProvider({
  name: 'log',
  env: {},
  settings: (): Record<never, never> => ({}),
  create: (_settings, _timeoutMs, logger) => createLogPushProvider(logger),
});
