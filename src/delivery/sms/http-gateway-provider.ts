// A generic SMS gateway over HTTP: most regional gateways take the number and
// the text as form fields, a query string or a small JSON document, which a
// template with {phone} and {text} describes. With `idempotencyHeader` the
// outbox id travels in that header, the same on every attempt, and a send
// whose answer was lost is sent again (the gateway drops the repeat); without
// it such a send is recorded `uncertain`, never sent twice
// (docs/delivery.md#sent-once).
import { z } from 'zod';
import { secretSetting, setting, url } from '../../config-values';
import { failureFromStatus, httpCall, isSuccess } from '../http/http-call';
import { required, smsProvider } from '../provider-descriptor';
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

function fillTemplate(template: string, message: SmsMessage, escape: (value: string) => string): string {
  const values: Record<string, string> = {
    phone: message.phone,
    phone_digits: message.phone.replace(/^\+/, ''),
    text: message.text,
    id: message.id,
  };
  return template.replace(/\{(phone|phone_digits|text|id)\}/g, (_, name: string) => escape(values[name]));
}

export function createHttpGatewayProvider(options: HttpGatewayOptions): SmsProvider {
  const idempotencyHeader = options.idempotencyHeader ?? null;
  return {
    name: httpGateway.name,
    retriesUncertain: idempotencyHeader !== null,
    async send(message: SmsMessage): Promise<SendResult> {
      const filled = fillTemplate(options.bodyTemplate, message, ESCAPE[options.format]);
      // A GET carries the filled template as its query string.
      const url =
        options.method === 'GET' ? `${options.url}${options.url.includes('?') ? '&' : '?'}${filled}` : options.url;
      const headers: Record<string, string> =
        options.method === 'GET'
          ? { ...options.headers }
          : { 'content-type': CONTENT_TYPE[options.format], ...options.headers };
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

/** What SMS_HTTP_* say, checked: the gateway's options but the time limit. */
export interface HttpGatewaySettings extends Omit<HttpGatewayOptions, 'timeoutMs' | 'idempotencyHeader'> {
  readonly idempotencyHeader: string | null;
}

const DEFAULT_FORM_BODY = 'to={phone}&text={text}';
const DEFAULT_JSON_BODY = '{"to":"{phone}","text":"{text}"}';

/** SMS_PROVIDER=http: SMS_HTTP_URL, and how to fill the request (docs/configuration.md#sms-providers). */
export const httpGateway = smsProvider({
  name: 'http',
  env: {
    SMS_HTTP_URL: url('SMS_HTTP_URL')
      .optional()
      .meta(setting('sms', "`http`: the gateway's URL.", 'required with `http`')),
    SMS_HTTP_METHOD: z
      .string()
      .trim()
      .toUpperCase()
      .pipe(z.enum(['GET', 'POST'], { error: 'SMS_HTTP_METHOD must be POST or GET' }))
      .default('POST')
      .meta(setting('sms', '`http`: `POST` or `GET` (a GET sends the filled template as its query string).')),
    SMS_HTTP_FORMAT: z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(['form', 'json'], { error: 'SMS_HTTP_FORMAT must be form or json' }))
      .default('form')
      .meta(
        setting(
          'sms',
          '`http`: `form` or `json`: how values are escaped into the template, and the Content-Type of a POST.',
        ),
      ),
    SMS_HTTP_HEADERS: z
      .string()
      .optional()
      .meta(
        secretSetting('sms', '`http`: a JSON object of extra headers (API keys), such as `{"X-Api-Key":"…"}`.', '`{}`'),
      ),
    SMS_HTTP_BODY: z
      .string()
      .optional()
      .meta(
        setting(
          'sms',
          '`http`: the body template; `{phone}` (E.164), `{phone_digits}` (no `+`), `{text}`, `{id}` (the outbox id).',
          '`to={phone}&text={text}` (with `json`: `{"to":"{phone}","text":"{text}"}`)',
        ),
      ),
    SMS_HTTP_IDEMPOTENCY_HEADER: z
      .string()
      .trim()
      .toLowerCase()
      .regex(
        /^[!#$%&'*+.^_`|~0-9a-z-]+$/,
        'SMS_HTTP_IDEMPOTENCY_HEADER must be an HTTP header name, such as Idempotency-Key',
      )
      .optional()
      .meta(
        setting(
          'sms',
          '`http`: the header in which the gateway takes an idempotency key (the outbox id); set, a send whose answer was lost is retried, unset it is `uncertain` ([sent once](delivery.md#sent-once)).',
        ),
      ),
  },
  settings(values, problems, chosenBy): HttpGatewaySettings | null {
    if (values.SMS_HTTP_URL === undefined) return required(problems, 'SMS_HTTP_URL', chosenBy);
    const format = values.SMS_HTTP_FORMAT;
    const bodyTemplate = values.SMS_HTTP_BODY ?? (format === 'json' ? DEFAULT_JSON_BODY : DEFAULT_FORM_BODY);
    const before = problems.length;
    if (values.SMS_HTTP_METHOD === 'GET' && format === 'json')
      problems.push('SMS_HTTP_FORMAT: json needs SMS_HTTP_METHOD=POST (a GET sends the template as its query string)');
    if (!bodyTemplate.includes('{text}') || !/\{phone(_digits)?\}/.test(bodyTemplate)) {
      problems.push('SMS_HTTP_BODY: the template must contain {text} and {phone} (or {phone_digits})');
    } else if (format === 'json' && !isJsonTemplate(bodyTemplate)) {
      problems.push(
        `SMS_HTTP_BODY: with SMS_HTTP_FORMAT=json the template must be a JSON document once filled, such as ${DEFAULT_JSON_BODY}`,
      );
    }
    const headers = parseHeaders(values.SMS_HTTP_HEADERS, problems);
    if (problems.length > before || headers === null) return null;
    return {
      url: values.SMS_HTTP_URL,
      method: values.SMS_HTTP_METHOD,
      format,
      headers,
      bodyTemplate,
      idempotencyHeader: values.SMS_HTTP_IDEMPOTENCY_HEADER ?? null,
    };
  },
  create: (settings, timeoutMs) => createHttpGatewayProvider({ ...settings, timeoutMs }),
});

function isJsonTemplate(template: string): boolean {
  try {
    JSON.parse(fillTemplate(template, { id: 'id', phone: '+10000000000', text: 'text "quoted"' }, ESCAPE.json));
    return true;
  } catch {
    return false;
  }
}

function parseHeaders(text: string | undefined, problems: string[]): Record<string, string> | null {
  if (text === undefined) return {};
  const result = z.record(z.string(), z.string()).safeParse(safeJson(text));
  if (!result.success) {
    problems.push('SMS_HTTP_HEADERS: must be a JSON object of header names and text values, such as {"X-Api-Key":"…"}');
    return null;
  }
  return result.data;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
