// POSTs each notification as a JSON document to a company gateway or a push
// server. The document carries our fields and, under `notifications`, the
// shape gorush's POST /api/push reads, so that gorush can be the target as is.
// The outbox id travels as `Idempotency-Key` (and in the document), the same
// on every attempt, so that a gateway can drop a repeat: a send whose answer
// was lost is sent again. The message options travel in our fields as
// `options` (docs/delivery.md#message-options), with the lifetime left at the
// moment of sending as `ttlSeconds`; the gorush part leaves them out.
import { z } from 'zod';
import { secretSetting, setting, url } from '../../config-values';
import { failureFromStatus, httpCall, isSuccess } from '../http/http-call';
import { pushProvider, required } from '../provider-descriptor';
import { failure, sent, type PushMessage, type PushProvider, type SendResult } from '../provider';

export interface WebhookProviderOptions {
  readonly url: string;
  /** Sent as `Authorization: Bearer …` when set. */
  readonly token: string | null;
  readonly timeoutMs: number;
  /** The clock the options' ttlSeconds is counted by (ms since the epoch); the system's unless given (tests). */
  readonly now?: () => number;
}

// gorush's platform numbers.
const GORUSH_PLATFORM = { ios: 1, android: 2, web: 2 } as const;

function secondsLeft(expiresAt: string | null, now: number): number | null {
  return expiresAt === null ? null : Math.max(0, Math.floor((Date.parse(expiresAt) - now) / 1000));
}

export function createWebhookProvider(options: WebhookProviderOptions): PushProvider {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (options.token !== null) headers.authorization = `Bearer ${options.token}`;
  return {
    name: webhook.name,
    retriesUncertain: true,
    async send(message: PushMessage): Promise<SendResult> {
      const data = { ...message.data, notificationId: message.id };
      const document = {
        id: message.id,
        token: message.token,
        platform: message.platform,
        title: message.title,
        body: message.body,
        data,
        ...(message.options === null || message.options === undefined
          ? {}
          : {
              options: {
                ...message.options,
                ttlSeconds: secondsLeft(message.options.expiresAt, (options.now ?? Date.now)()),
              },
            }),
        notifications: [
          {
            tokens: [message.token],
            platform: GORUSH_PLATFORM[message.platform ?? 'android'],
            title: message.title,
            message: message.body,
            data,
          },
        ],
      };
      const answer = await httpCall({
        url: options.url,
        method: 'POST',
        headers: { ...headers, 'idempotency-key': message.id },
        body: JSON.stringify(document),
        timeoutMs: options.timeoutMs,
      });
      if (!answer.ok) return answer;
      if (isSuccess(answer)) return sent();
      // 410 Gone is the one answer a gateway can give to say "this token is dead";
      // a 404 may just be a wrong URL, and must not cost every device its token.
      if (answer.status === 410)
        return failure('http_410', 'The gateway says the push token is no longer registered (HTTP 410).', {
          tokenInvalid: true,
        });
      return failureFromStatus(answer);
    },
  };
}

/** PUSH_PROVIDER=webhook: PUSH_WEBHOOK_URL, and PUSH_WEBHOOK_TOKEN when the gateway wants one. */
export const webhook = pushProvider({
  name: 'webhook',
  env: {
    PUSH_WEBHOOK_URL: url('PUSH_WEBHOOK_URL')
      .optional()
      .meta(setting('push', '`webhook`: where to POST each notification.', 'required with `webhook`')),
    PUSH_WEBHOOK_TOKEN: z
      .string()
      .trim()
      .optional()
      .meta(secretSetting('push', '`webhook`: the bearer token sent.', 'unset: none sent')),
  },
  settings(values, problems, chosenBy): Omit<WebhookProviderOptions, 'timeoutMs'> | null {
    if (values.PUSH_WEBHOOK_URL === undefined) return required(problems, 'PUSH_WEBHOOK_URL', chosenBy);
    return { url: values.PUSH_WEBHOOK_URL, token: values.PUSH_WEBHOOK_TOKEN ?? null };
  },
  create: (settings, timeoutMs) => createWebhookProvider({ url: settings.url, token: settings.token, timeoutMs }),
});
