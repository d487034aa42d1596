// Firebase Cloud Messaging HTTP v1: one request per message to
// {base}/v1/projects/{project}/messages:send with a cached OAuth2 token.
// Over HTTP/2 to an https:// base (FCM itself: many streams on a few
// sessions, docs/delivery.md#fcm-over-http2); over HTTP/1.1 to an http://
// one (a local fake or a plain proxy).
import { H2Pool } from '../../http/h2-pool';
import { httpCall, isSuccess, jsonBody, type HttpAnswer } from '../../http/http-call';
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
  /** HTTP/2 sessions to FCM at most; 4 when unset. */
  readonly http2Sessions?: number;
  /** Extra certificate authorities (PEM) for the HTTP/2 sessions (tests); NODE_EXTRA_CA_CERTS serves a process. */
  readonly ca?: string;
}

export function createFcmProvider(options: FcmProviderOptions): PushProvider {
  const base = new URL(options.baseUrl);
  const path = `${base.pathname.replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(options.projectId)}/messages:send`;
  const pool = base.protocol === 'https:' ? new H2Pool({ origin: base.origin, maxSessions: options.http2Sessions, ca: options.ca }) : null;
  const post = (headers: Record<string, string>, body: string) =>
    pool === null
      ? httpCall({ url: `${base.origin}${path}`, method: 'POST', headers, body, timeoutMs: options.timeoutMs })
      : pool.request({ path, method: 'POST', headers, body, timeoutMs: options.timeoutMs });
  return {
    name: 'fcm',
    // FCM takes no idempotency key; a repeat carries the same notificationId,
    // which the app drops, and a lost notice is worse than a dropped repeat.
    retriesUncertain: true,
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
      const answer: HttpAnswer | SendResult = await post(
        { authorization: `Bearer ${access.token}`, 'content-type': 'application/json; charset=utf-8' },
        JSON.stringify({ message: { token: message.token, ...payload } }),
      );
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
