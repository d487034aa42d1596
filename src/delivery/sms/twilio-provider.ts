// Twilio's Programmable Messaging API: POST /2010-04-01/Accounts/{sid}/Messages.json.
import { failureFromStatus, httpCall, isSuccess, jsonBody } from '../http/http-call';
import { sent, type SendResult, type SmsMessage, type SmsProvider } from '../provider';

export const TWILIO_BASE_URL = 'https://api.twilio.com';

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
  const sender: Record<string, string> = /^MG[0-9a-f]{32}$/i.test(options.from) ? { MessagingServiceSid: options.from } : { From: options.from };
  return {
    name: 'twilio',
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
