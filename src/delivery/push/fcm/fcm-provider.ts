// Firebase Cloud Messaging HTTP v1: one request per message to
// {base}/v1/projects/{project}/messages:send with a cached OAuth2 token.
import { httpCall, isSuccess, jsonBody } from '../../http/http-call';
import { failure, sent, type PushMessage, type PushProvider, type SendResult } from '../../provider';
import type { AccessTokenSource } from './access-token';
import { fcmFailure } from './fcm-error';

/** FCM's limit on a message's payload (notification and data, keys and values). */
export const FCM_PAYLOAD_LIMIT = 4096;
export const FCM_BASE_URL = 'https://fcm.googleapis.com';

export interface FcmProviderOptions {
  readonly projectId: string;
  readonly baseUrl: string;
  readonly tokens: AccessTokenSource;
  readonly timeoutMs: number;
}

export function createFcmProvider(options: FcmProviderOptions): PushProvider {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(options.projectId)}/messages:send`;
  return {
    name: 'fcm',
    async send(message: PushMessage): Promise<SendResult> {
      const payload = {
        notification: { title: message.title, body: message.body },
        data: { ...message.data, notificationId: message.id },
      };
      const size = Buffer.byteLength(JSON.stringify(payload), 'utf8');
      if (size > FCM_PAYLOAD_LIMIT) {
        return failure('payload_too_large', `The message is ${size} bytes; FCM accepts at most ${FCM_PAYLOAD_LIMIT}.`);
      }
      const access = await options.tokens.get();
      if (!access.ok) return access;
      const answer = await httpCall({
        url,
        method: 'POST',
        headers: { authorization: `Bearer ${access.token}`, 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ message: { token: message.token, ...payload } }),
        timeoutMs: options.timeoutMs,
      });
      if (!answer.ok) return answer;
      if (isSuccess(answer)) {
        const name = (jsonBody(answer) as { name?: unknown } | undefined)?.name;
        return sent(typeof name === 'string' ? name : null);
      }
      if (answer.status === 401) options.tokens.invalidate(access.token);
      return fcmFailure(answer);
    },
  };
}
