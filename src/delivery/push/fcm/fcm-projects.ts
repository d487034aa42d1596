// FCM_PROJECTS (docs/delivery.md#fcm-credentials): more FCM projects beside
// the default one, for the white-label apps of different vendors, each chosen
// by the schools that name it (the schools collection's fcmProject). Each
// entry is read and checked at start as the default project is, and every
// problem names its entry, never a key.
import { z } from 'zod';
import { DEFAULT_FCM_PROJECT, FCM_PROJECT_NAME } from '../../../domain/fcm-project';
import { readTextFile } from '../../config/json-files';
import type { FcmCredentials } from './access-token';
import { parseCredentialsFile } from './credentials-file';

/** Projects at most: a bound on the sessions and token sources one worker holds, and on the metrics' labels. */
export const MAX_FCM_PROJECTS = 32;

/** One project's settings, the default's or an entry's. */
export interface FcmProjectSettings {
  /** `default`, or the entry's name: what schools name, and the `project` label of the metrics. */
  readonly name: string;
  /** A key or external-account file's JSON, or Application Default Credentials. */
  readonly credentials: FcmCredentials;
  readonly projectId: string;
  readonly baseUrl: string;
  /** A service account's token endpoint; null: Google's. */
  readonly tokenUrl: string | null;
  /** HTTP/2 sessions to an https:// FCM at most. */
  readonly http2Sessions: number;
  /** Sends in flight to this project at once at most; null: only the worker's own limits. */
  readonly maxInFlight: number | null;
}

const httpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL.' })
  .max(2048, 'must be at most 2048 characters.');

const wholeNumber = (min: number, max: number) =>
  z
    .number({ error: 'must be a number.' })
    .refine(
      (value) => Number.isInteger(value) && value >= min && value <= max,
      `must be a whole number from ${min} to ${max}.`,
    );

const Entry = z.strictObject({
  name: z
    .string({ error: 'must be a string.' })
    .regex(FCM_PROJECT_NAME, 'must be 1-48 of a-z, 0-9, - and _, starting with a letter or digit.')
    .refine((name) => name !== DEFAULT_FCM_PROJECT, `"${DEFAULT_FCM_PROJECT}" is FCM_PROJECT_ID's project.`),
  projectId: z.string({ error: 'must be a string.' }).trim().min(1, 'must not be empty.').max(128).optional(),
  credentials: z.string({ error: 'must be a path.' }).trim().min(1, 'must not be empty.').max(4096).optional(),
  baseUrl: httpUrl.optional(),
  tokenUrl: httpUrl.optional(),
  http2Sessions: wholeNumber(1, 64).optional(),
  maxInFlight: wholeNumber(1, 10_000).optional(),
});

/** What an entry, or the FCM_* variables, say before the credentials file is read. */
export interface FcmProjectSource {
  readonly name: string;
  /** The variable or entry, for problems: `FCM_CREDENTIALS`, `FCM_PROJECTS entry 2 ("brand-a")`. */
  readonly label: string;
  readonly credentialsPath: string | undefined;
  readonly projectId: string | undefined;
  readonly baseUrl: string;
  readonly tokenUrl: string | undefined;
  readonly http2Sessions: number;
  readonly maxInFlight: number | null;
}

/** Reads the credentials file, if any, and settles the project id; null after pushing the problem. */
export function projectSettings(source: FcmProjectSource, problems: string[]): FcmProjectSettings | null {
  const common = {
    name: source.name,
    baseUrl: source.baseUrl,
    http2Sessions: source.http2Sessions,
    maxInFlight: source.maxInFlight,
  };
  if (source.credentialsPath === undefined) {
    if (source.projectId === undefined) {
      problems.push(
        `${source.label === 'FCM_CREDENTIALS' ? 'FCM_PROJECT_ID' : `${source.label}: projectId`}: required with Application Default Credentials (${source.label === 'FCM_CREDENTIALS' ? 'FCM_CREDENTIALS unset' : 'no credentials'})`,
      );
      return null;
    }
    return {
      ...common,
      credentials: { kind: 'application_default' },
      projectId: source.projectId,
      tokenUrl: source.tokenUrl ?? null,
    };
  }
  const text = readTextFile(source.label, source.credentialsPath);
  if (!text.ok) {
    problems.push(text.problem);
    return null;
  }
  const parsed = parseCredentialsFile(text.value);
  if (!parsed.ok) {
    problems.push(`${source.label}: ${source.credentialsPath} ${parsed.problem}`);
    return null;
  }
  const projectId = source.projectId ?? parsed.file.projectId;
  if (projectId === null) {
    problems.push(
      `${source.label === 'FCM_CREDENTIALS' ? 'FCM_PROJECT_ID' : `${source.label}: projectId`}: required with a credentials file without project_id`,
    );
    return null;
  }
  return {
    ...common,
    credentials: { kind: 'file', json: parsed.file.json },
    projectId,
    tokenUrl: source.tokenUrl ?? parsed.file.tokenUri,
  };
}

/**
 * FCM_PROJECTS' JSON list → each entry's settings, or null after pushing every
 * problem found. An entry leaves out what the default project's variables
 * give (FCM_BASE_URL, FCM_HTTP2_SESSIONS); never FCM_CREDENTIALS, whose
 * project is the default's.
 */
export function parseFcmProjects(
  text: string,
  defaults: { readonly baseUrl: string; readonly http2Sessions: number },
  problems: string[],
): FcmProjectSettings[] | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    problems.push('FCM_PROJECTS: is not JSON (expected a list of {"name", "projectId", "credentials", …})');
    return null;
  }
  if (!Array.isArray(json)) {
    problems.push('FCM_PROJECTS: is not a JSON list');
    return null;
  }
  if (json.length > MAX_FCM_PROJECTS) {
    problems.push(`FCM_PROJECTS: names ${json.length} projects; at most ${MAX_FCM_PROJECTS}`);
    return null;
  }
  const before = problems.length;
  const seen = new Set<string>();
  const projects: FcmProjectSettings[] = [];
  json.forEach((raw: unknown, index) => {
    const name = typeof (raw as { name?: unknown } | null)?.name === 'string' ? (raw as { name: string }).name : null;
    const label = `FCM_PROJECTS entry ${index + 1}${name === null ? '' : ` (${JSON.stringify(name.slice(0, 64))})`}`;
    const entry = Entry.safeParse(raw);
    if (!entry.success) {
      const issue = entry.error.issues[0];
      const where = issue.path.join('.');
      problems.push(`${label}: ${where === '' ? '' : `${where} `}${issue.message}`);
      return;
    }
    if (seen.has(entry.data.name)) {
      problems.push(`${label}: the name is used by an earlier entry`);
      return;
    }
    seen.add(entry.data.name);
    const settings = projectSettings(
      {
        name: entry.data.name,
        label,
        credentialsPath: entry.data.credentials,
        projectId: entry.data.projectId,
        baseUrl: entry.data.baseUrl ?? defaults.baseUrl,
        tokenUrl: entry.data.tokenUrl,
        http2Sessions: entry.data.http2Sessions ?? defaults.http2Sessions,
        maxInFlight: entry.data.maxInFlight ?? null,
      },
      problems,
    );
    if (settings !== null) projects.push(settings);
  });
  return problems.length > before ? null : projects;
}
