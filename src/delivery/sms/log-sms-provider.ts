import type { Logger } from '../../log';
import { smsProvider } from '../provider-descriptor';
import { sent, type SendResult, type SmsMessage, type SmsProvider } from '../provider';
import { maskPhone } from '../../log';

/** The default: the log records that a code went out, never the code or the text. */
export function createLogSmsProvider(logger: Logger): SmsProvider {
  return {
    name: logSms.name,
    retriesUncertain: true,
    send(message: SmsMessage): Promise<SendResult> {
      logger.info(
        { messageId: message.id, to: maskPhone(message.phone) },
        'SMS delivered to the log (SMS_PROVIDER=log; text not logged)',
      );
      return Promise.resolve(sent());
    },
  };
}

/** SMS_PROVIDER=log: no variables of its own. */
export const logSms = smsProvider({
  name: 'log',
  env: {},
  settings: (): Record<never, never> => ({}),
  create: (_settings, _timeoutMs, logger) => createLogSmsProvider(logger),
});
