// Firebase Cloud Messaging HTTP v1: one request per message to
// {base}/v1/projects/{project}/messages:send with a cached OAuth2 token.
// Over HTTP/2 to an https:// base (FCM itself: many streams on a few
// sessions, docs/delivery.md#fcm-over-http2); over HTTP/1.1 to an http://
// one (a local fake or a plain proxy).
import { z } from 'zod';
import { integer, secretSetting, setting, url } from '../../../config-values';
import { DEFAULT_FCM_PROJECT, setKnownFcmProjects } from '../../../domain/fcm-project';
import { H2Pool } from '../../http/h2-pool';
import { httpCall, isSuccess, jsonBody, type HttpAnswer } from '../../http/http-call';
import { pushProvider } from '../../provider-descriptor';
import { failure, sent, type PushMessage, type PushProvider, type SendResult } from '../../provider';
import { AccessTokenSource } from './access-token';
import { fcmFailure } from './fcm-error';
import { fcmMessage } from './fcm-message';
import { parseFcmProjects, projectSettings, type FcmProjectSettings } from './fcm-projects';

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
      // No UTF-16 unit takes more than 3 bytes in UTF-8, so a short body is not measured at all.
      if (body.length * 3 > FCM_PAYLOAD_LIMIT && Buffer.byteLength(body, 'utf8') > FCM_PAYLOAD_LIMIT) {
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

/** What FCM_* say, checked, the key files read: the default project's, and FCM_PROJECTS' beside it. */
export type FcmSettings = FcmProjectSettings & {
  /** FCM_PROJECTS' entries, in order; empty: the default project alone. */
  readonly projects: readonly FcmProjectSettings[];
};

/**
 * PUSH_PROVIDER=fcm: FCM_CREDENTIALS, a service-account key file or an
 * external-account file, is read at start, so that a bad one stops the start;
 * unset, Application Default Credentials (docs/delivery.md#fcm-credentials).
 * FCM_PROJECTS adds projects that schools choose by name.
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
    FCM_PROJECTS: z
      .string()
      .trim()
      .max(64 * 1024)
      .optional()
      .meta(
        secretSetting(
          'push',
          '`fcm`: more FCM projects, chosen per school by name: a JSON list of `{"name", "projectId", "credentials", "baseUrl", "tokenUrl", "http2Sessions", "maxInFlight"}` ([several projects](delivery.md#several-fcm-projects-chosen-per-school)).',
          'none: the default project alone',
        ),
      ),
  },
  settings(values, problems): FcmSettings | null {
    const defaults = { baseUrl: values.FCM_BASE_URL, http2Sessions: values.FCM_HTTP2_SESSIONS };
    const projects = values.FCM_PROJECTS === undefined ? [] : parseFcmProjects(values.FCM_PROJECTS, defaults, problems);
    const main = projectSettings(
      {
        name: DEFAULT_FCM_PROJECT,
        label: 'FCM_CREDENTIALS',
        credentialsPath: values.FCM_CREDENTIALS,
        projectId: values.FCM_PROJECT_ID,
        tokenUrl: values.FCM_TOKEN_URL,
        maxInFlight: null,
        ...defaults,
      },
      problems,
    );
    if (main === null || projects === null) return null;
    // What schools may name from now on (the schools collection checks it at each write).
    setKnownFcmProjects(projects.map((project) => project.name));
    return { ...main, projects };
  },
  create(settings, timeoutMs) {
    const one = (project: FcmProjectSettings): PushProvider =>
      createFcmProvider({
        projectId: project.projectId,
        baseUrl: project.baseUrl,
        tokens: new AccessTokenSource({ credentials: project.credentials, tokenUrl: project.tokenUrl, timeoutMs }),
        timeoutMs,
        http2Sessions: project.http2Sessions,
      });
    if (settings.projects.length === 0) return one(settings);
    return routeByProject([settings, ...settings.projects].map((project) => ({ project, provider: one(project) })));
  },
});

/**
 * One provider over several projects, each with its own token source, HTTP/2
 * sessions and bound on sends in flight: a message goes through the project
 * its school names (PushMessage.project), the default when it names none. A
 * project no longer configured (removed from FCM_PROJECTS since the school
 * named it) fails the message for good: no retry would find it.
 */
export function routeByProject(
  projects: readonly { readonly project: FcmProjectSettings; readonly provider: PushProvider }[],
): PushProvider {
  const byName = new Map(
    projects.map(({ project, provider }) => [
      project.name,
      { provider, gate: project.maxInFlight === null ? null : new InFlightGate(project.maxInFlight) },
    ]),
  );
  return {
    name: fcm.name,
    retriesUncertain: true,
    byProject: true,
    async send(message: PushMessage): Promise<SendResult> {
      const name = message.project ?? DEFAULT_FCM_PROJECT;
      const route = byName.get(name);
      if (route === undefined)
        return failure(
          'fcm_project_unknown',
          `The school names the FCM project "${name.slice(0, 64)}", which is not configured (FCM_PROJECTS).`,
        );
      if (route.gate === null) return route.provider.send(message);
      await route.gate.enter();
      try {
        return await route.provider.send(message);
      } finally {
        route.gate.leave();
      }
    },
  };
}

/** At most `limit` holders at once; the others wait in order. */
class InFlightGate {
  readonly #limit: number;
  #held = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  enter(): Promise<void> {
    if (this.#held < this.#limit) {
      this.#held++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  leave(): void {
    const next = this.#waiting.shift();
    // The slot passes straight to the next in line: held stays the same.
    if (next !== undefined) next();
    else this.#held--;
  }
}
