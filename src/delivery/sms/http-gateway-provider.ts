// A generic SMS gateway over HTTP: most regional gateways take the number and
// the text as form fields, a query string or a small JSON document, which a
// template with {phone} and {text} describes. With `idempotencyHeader` the
// outbox id travels in that header, the same on every attempt, and a send
// whose answer was lost is sent again (the gateway drops the repeat); without
// it such a send is recorded `uncertain`, never sent twice
// (docs/delivery.md#sent-once).
import { failureFromStatus, httpCall, isSuccess } from '../http/http-call';
import { sent, type SendResult, type SmsMessage, type SmsProvider } from '../provider';

export interface HttpGatewayOptions {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  /** How values are escaped into the template and the Content-Type of a POST. */
  readonly format: 'form' | 'json';
  readonly headers: Readonly<Record<string, string>>;
  /** `{phone}` (E.164), `{phone_digits}` (without +), `{text}`, `{id}` (the outbox id). */
  readonly bodyTemplate: string;
  /** The header that carries the outbox id as an idempotency key, when the gateway honours one. */
  readonly idempotencyHeader?: string | null;
  readonly timeoutMs: number;
}

const CONTENT_TYPE = { form: 'application/x-www-form-urlencoded', json: 'application/json; charset=utf-8' } as const;
const ESCAPE = {
  form: (value: string) => encodeURIComponent(value),
  // Inside a JSON string: the template supplies the quotes.
  json: (value: string) => JSON.stringify(value).slice(1, -1),
} as const;

export function fillTemplate(template: string, message: SmsMessage, escape: (value: string) => string): string {
  const values: Record<string, string> = { phone: message.phone, phone_digits: message.phone.replace(/^\+/, ''), text: message.text, id: message.id };
  return template.replace(/\{(phone|phone_digits|text|id)\}/g, (_, name: string) => escape(values[name]));
}

export function createHttpGatewayProvider(options: HttpGatewayOptions): SmsProvider {
  const idempotencyHeader = options.idempotencyHeader ?? null;
  return {
    name: 'http',
    retriesUncertain: idempotencyHeader !== null,
    async send(message: SmsMessage): Promise<SendResult> {
      const filled = fillTemplate(options.bodyTemplate, message, ESCAPE[options.format]);
      // A GET carries the filled template as its query string.
      const url = options.method === 'GET' ? `${options.url}${options.url.includes('?') ? '&' : '?'}${filled}` : options.url;
      const headers: Record<string, string> =
        options.method === 'GET' ? { ...options.headers } : { 'content-type': CONTENT_TYPE[options.format], ...options.headers };
      if (idempotencyHeader !== null) headers[idempotencyHeader] = message.id;
      const answer = await httpCall({
        url,
        method: options.method,
        headers,
        body: options.method === 'GET' ? undefined : filled,
        timeoutMs: options.timeoutMs,
      });
      if (!answer.ok) return answer;
      return isSuccess(answer) ? sent() : failureFromStatus(answer);
    },
  };
}
