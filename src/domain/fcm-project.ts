// The FCM projects a school may name (docs/delivery.md#fcm-credentials): the
// ones configured at start (FCM_PROJECTS), and `default`, the project of
// FCM_PROJECT_ID/FCM_CREDENTIALS. The configuration sets them once, before the
// store takes a write, so that a school naming an unknown project is refused
// when it is written, not when its first push fails.

/** The project of FCM_PROJECT_ID/FCM_CREDENTIALS, and of every school that names none. */
export const DEFAULT_FCM_PROJECT = 'default';
/** A project's name: short, plain, and fit for a metrics label (src/metrics/labels.ts). */
export const FCM_PROJECT_NAME = /^[a-z0-9][a-z0-9_-]{0,47}$/;
export const FCM_PROJECT_NAME_MAX = 48;

let known: ReadonlySet<string> = new Set([DEFAULT_FCM_PROJECT]);

/** The names the configuration holds (`default` is always one). */
export function setKnownFcmProjects(names: readonly string[]): void {
  known = new Set([DEFAULT_FCM_PROJECT, ...names]);
}

export function isKnownFcmProject(name: string): boolean {
  return known.has(name);
}

/** In the order configured, `default` first. */
export function knownFcmProjects(): readonly string[] {
  return [...known];
}
