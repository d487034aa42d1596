// Which FCM project each school's pushes go through (docs/delivery.md#fcm-credentials),
// looked up once per claim for the schools it holds and kept for a short
// while, so that a busy worker asks the store about a school only every
// few seconds, and a change made in the admin API or the console reaches
// the worker within that time.
import { DEFAULT_FCM_PROJECT } from '../domain/fcm-project';
import type { DeliveryStore } from './delivery-store';

/** How long a school's project is kept before it is looked up again. */
export const SCHOOL_PROJECT_TTL_MS = 10_000;
// Schools kept at most: a bound on memory whatever the number of schools.
const MAX_SCHOOLS = 10_000;

export class SchoolProjects {
  readonly #store: Pick<DeliveryStore, 'schoolFcmProjects'>;
  readonly #now: () => number;
  readonly #cached = new Map<string, { readonly project: string; readonly until: number }>();

  constructor(store: Pick<DeliveryStore, 'schoolFcmProjects'>, now: () => number = Date.now) {
    this.#store = store;
    this.#now = now;
  }

  /** The project of each school (`default` for one naming none, or not stored, or a null key). */
  async resolve(schoolKeys: readonly (string | null)[]): Promise<(key: string | null) => string> {
    const now = this.#now();
    const missing = new Set<string>();
    for (const key of schoolKeys) if (key !== null && !((this.#cached.get(key)?.until ?? 0) > now)) missing.add(key);
    if (missing.size > 0) {
      const found = await this.#store.schoolFcmProjects([...missing]);
      if (this.#cached.size + missing.size > MAX_SCHOOLS) this.#cached.clear();
      for (const key of missing)
        this.#cached.set(key, { project: found.get(key) ?? DEFAULT_FCM_PROJECT, until: now + SCHOOL_PROJECT_TTL_MS });
    }
    return (key) => (key === null ? DEFAULT_FCM_PROJECT : (this.#cached.get(key)?.project ?? DEFAULT_FCM_PROJECT));
  }
}
