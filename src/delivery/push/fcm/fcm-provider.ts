// Firebase Cloud Messaging HTTP v1: one request per message to
// {base}/v1/projects/{project}/messages:send with a cached OAuth2 token.
// Over HTTP/2 to an https:// base (FCM itself: many streams on a few
// sessions, docs/delivery.md#fcm-over-http2); over HTTP/1.1 to an http://
// one (a local fake or a plain proxy).
import { z } from 'zod';
import { integer, setting, url } from '../../../config-values';
import { readTextFile } from '../../config/json-files';
import { H2Pool } from '../../http/h2-pool';
import { httpCall, isSuccess, jsonBody, type HttpAnswer } from '../../http/http-call';
import { pushProvider, required } from '../../provider-descriptor';
import { failure, sent, type PushMessage, type PushProvider, type SendResult } from '../../provider';
import { AccessTokenSource, type FcmCredentials } from './access-token';
import { parseCredentialsFile } from './credentials-file';
import { fcmFailure } from './fcm-error';
import { fcmMessage } from './fcm-message';

/** FCM's limit on a message's payload (notification and data, keys and values). */
export const FCM_PAYLOAD_LIMIT = 4096;
const FCM_BASE_URL = 'https://fcm.googleapis.com';

export interface FcmProviderOptions {
  readonly projectId: string;
  readonly baseUrl: string;
  readonly tokens: AccessTokenSource;
  readonly timeoutMs: number;
  /** HTTP/2 sessions to FCM at most; 4 when unset. */
  readonly http2Sessions?: number;
  /** Extra certificate authorities (PEM) for the HTTP/2 sessions (tests); NODE_EXTRA_CA_CERTS serves a process. */
  readonly ca?: string;
  /** The clock a message's time to live is counted by (ms since the epoch); the system's unless given (tests). */
  readonly now?: () => number;
}

export function createFcmProvider(options: FcmProviderOptions): PushProvider {
  const base = new URL(options.baseUrl);
  const path = `${base.pathname.replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(options.projectId)}/messages:send`;
  const pool =
    base.protocol === 'https:'
      ? new H2Pool({ origin: base.origin, maxSessions: options.http2Sessions, ca: options.ca })
      : null;
  const post = (headers: Record<string, string>, body: string) =>
    pool === null
      ? httpCall({ url: `${base.origin}${path}`, method: 'POST', headers, body, timeoutMs: options.timeoutMs })
      : pool.request({ path, method: 'POST', headers, body, timeoutMs: options.timeoutMs });
  return {
    name: fcm.name,
    // FCM takes no idempotency key; a repeat carries the same notificationId,
    // which the app drops, and a lost notice is worse than a dropped repeat.
    retriesUncertain: true,
    async send(message: PushMessage): Promise<SendResult> {
      const fcm = fcmMessage(message, (options.now ?? Date.now)());
      const payload = { notification: fcm.notification, data: fcm.data };
      const body = JSON.stringify({ message: fcm });
      // A request within the limit has a payload within it too: only a large one is measured on its own.
      if (Buffer.byteLength(body, 'utf8') > FCM_PAYLOAD_LIMIT) {
        const size = Buffer.byteLength(JSON.stringify(payload), 'utf8');
        if (size > FCM_PAYLOAD_LIMIT)
          return failure(
            'payload_too_large',
            `The message is ${size} bytes; FCM accepts at most ${FCM_PAYLOAD_LIMIT}.`,
          );
      }
      const access = await options.tokens.get();
      if (!access.ok) return access;
      const answer: HttpAnswer | SendResult = await post(
        { authorization: `Bearer ${access.token}`, 'content-type': 'application/json; charset=utf-8' },
        body,
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

/** What FCM_* say, checked, the key file read. */
export interface FcmSettings {
  /** A key or external-account file's JSON, or Application Default Credentials (FCM_CREDENTIALS unset). */
  readonly credentials: FcmCredentials;
  readonly projectId: string;
  readonly baseUrl: string;
  /** A service account's token endpoint: FCM_TOKEN_URL, else the key file's token_uri; null: Google's. */
  readonly tokenUrl: string | null;
  /** HTTP/2 sessions to an https:// FCM at most. */
  readonly http2Sessions: number;
}

/**
 * PUSH_PROVIDER=fcm: FCM_CREDENTIALS, a service-account key file or an
 * external-account file, is read at start, so that a bad one stops the start;
 * unset, Application Default Credentials (docs/delivery.md#fcm-credentials).
 */
export const fcm = pushProvider({
  name: 'fcm',
  env: {
    FCM_CREDENTIALS: z
      .string()
      .trim()
      .optional()
      .meta(
        setting(
          'push',
          '`fcm`: path of a service-account key file (JSON from the Firebase console) or of an external-account file (workload identity federation); unset, Application Default Credentials ([FCM credentials](delivery.md#fcm-credentials)).',
          'Application Default Credentials',
        ),
      ),
    FCM_PROJECT_ID: z
      .string()
      .trim()
      .optional()
      .meta(
        setting(
          'push',
          '`fcm`: the Firebase project (required with Application Default Credentials or an external-account file without `project_id`).',
          "the file's `project_id`",
        ),
      ),
    FCM_BASE_URL: url('FCM_BASE_URL')
      .default(FCM_BASE_URL)
      .meta(setting('push', '`fcm`: the API base (a proxy, a test double).')),
    FCM_TOKEN_URL: url('FCM_TOKEN_URL')
      .optional()
      .meta(
        setting(
          'push',
          "`fcm`: a service account's OAuth2 token endpoint (an external-account file names its own).",
          "the key file's `token_uri`",
        ),
      ),
    FCM_HTTP2_SESSIONS: integer('FCM_HTTP2_SESSIONS', 1, 64)
      .default(4)
      .meta(
        setting(
          'push',
          '`fcm` over `https://`: HTTP/2 sessions at most ([FCM over HTTP/2](delivery.md#fcm-over-http2)).',
        ),
      ),
  },
  settings(values, problems): FcmSettings | null {
    if (values.FCM_CREDENTIALS === undefined) {
      if (values.FCM_PROJECT_ID === undefined)
        return required(problems, 'FCM_PROJECT_ID', 'Application Default Credentials (FCM_CREDENTIALS unset)');
      return {
        credentials: { kind: 'application_default' },
        projectId: values.FCM_PROJECT_ID,
        baseUrl: values.FCM_BASE_URL,
        tokenUrl: values.FCM_TOKEN_URL ?? null,
        http2Sessions: values.FCM_HTTP2_SESSIONS,
      };
    }
    const text = readTextFile('FCM_CREDENTIALS', values.FCM_CREDENTIALS);
    if (!text.ok) {
      problems.push(text.problem);
      return null;
    }
    const parsed = parseCredentialsFile(text.value);
    if (!parsed.ok) {
      problems.push(`FCM_CREDENTIALS: ${values.FCM_CREDENTIALS} ${parsed.problem}`);
      return null;
    }
    const projectId = values.FCM_PROJECT_ID ?? parsed.file.projectId;
    if (projectId === null) return required(problems, 'FCM_PROJECT_ID', 'a credentials file without project_id');
    return {
      credentials: { kind: 'file', json: parsed.file.json },
      projectId,
      baseUrl: values.FCM_BASE_URL,
      tokenUrl: values.FCM_TOKEN_URL ?? parsed.file.tokenUri,
      http2Sessions: values.FCM_HTTP2_SESSIONS,
    };
  },
  create(settings, timeoutMs) {
    const tokens = new AccessTokenSource({ credentials: settings.credentials, tokenUrl: settings.tokenUrl, timeoutMs });
    return createFcmProvider({
      projectId: settings.projectId,
      baseUrl: settings.baseUrl,
      tokens,
      timeoutMs,
      http2Sessions: settings.http2Sessions,
    });
  },
});
