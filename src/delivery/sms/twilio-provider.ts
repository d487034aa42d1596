// Twilio's Programmable Messaging API: POST /2010-04-01/Accounts/{sid}/Messages.json.
import { z } from 'zod';
import { secretSetting, setting, url } from '../../config-values';
import { failureFromStatus, httpCall, isSuccess, jsonBody } from '../http/http-call';
import { required, smsProvider } from '../provider-descriptor';
import { sent, type SendResult, type SmsMessage, type SmsProvider } from '../provider';

const TWILIO_BASE_URL = 'https://api.twilio.com';

export interface TwilioOptions {
  readonly accountSid: string;
  readonly authToken: string;
  /** A sender number (E.164) or alphanumeric id, or a Messaging Service SID (`MG…`). */
  readonly from: string;
  readonly baseUrl: string;
  readonly timeoutMs: number;
}

export function createTwilioProvider(options: TwilioOptions): SmsProvider {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}/Messages.json`;
  const authorization = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString('base64')}`;
  const sender: Record<string, string> = /^MG[0-9a-f]{32}$/i.test(options.from)
    ? { MessagingServiceSid: options.from }
    : { From: options.from };
  return {
    name: twilio.name,
    // Twilio's Messages API takes no idempotency key: a send that timed out may
    // have been accepted, and a second one would be a second SMS.
    retriesUncertain: false,
    async send(message: SmsMessage): Promise<SendResult> {
      const answer = await httpCall({
        url,
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ To: message.phone, Body: message.text, ...sender }).toString(),
        timeoutMs: options.timeoutMs,
      });
      if (!answer.ok) return answer;
      const body = jsonBody(answer) as { sid?: unknown; code?: unknown; message?: unknown } | undefined;
      if (isSuccess(answer)) return sent(typeof body?.sid === 'string' ? body.sid : null);
      // Twilio's own error number (21211 invalid To, 21610 unsubscribed, …) is the useful code.
      const code = typeof body?.code === 'number' ? `twilio_${body.code}` : undefined;
      return failureFromStatus(answer, code, typeof body?.message === 'string' ? body.message : undefined);
    },
  };
}

/** SMS_PROVIDER=twilio: the account, its secret and the sender, all three required. */
export const twilio = smsProvider({
  name: 'twilio',
  env: {
    TWILIO_ACCOUNT_SID: z
      .string()
      .trim()
      .optional()
      .meta(setting('sms', '`twilio`: the account.', 'required with `twilio`')),
    TWILIO_AUTH_TOKEN: z
      .string()
      .trim()
      .optional()
      .meta(secretSetting('sms', "`twilio`: the account's secret.", 'required with `twilio`')),
    TWILIO_FROM: z
      .string()
      .trim()
      .optional()
      .meta(
        setting(
          'sms',
          '`twilio`: the sender: a number (E.164), an alphanumeric id, or a Messaging Service SID (`MG…`).',
          'required with `twilio`',
        ),
      ),
    TWILIO_BASE_URL: url('TWILIO_BASE_URL').default(TWILIO_BASE_URL).meta(setting('sms', '`twilio`: the API base.')),
  },
  settings(values, problems, chosenBy): Omit<TwilioOptions, 'timeoutMs'> | null {
    const { TWILIO_ACCOUNT_SID: accountSid, TWILIO_AUTH_TOKEN: authToken, TWILIO_FROM: from } = values;
    if (accountSid === undefined || authToken === undefined || from === undefined) {
      const absent = (['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_FROM'] as const).filter(
        (name) => values[name] === undefined,
      );
      return required(problems, absent.join(', '), chosenBy);
    }
    return { accountSid, authToken, from, baseUrl: values.TWILIO_BASE_URL };
  },
  create: (settings, timeoutMs) => createTwilioProvider({ ...settings, timeoutMs }),
});
