// Distinct subjects (students, devices) read per caller per window
// (`enumeration` in an access policy; docs/access-limits.md). A caller reading the
// same few subjects again and again is never refused; one walking through ids
// is refused once it has read `max` distinct ones in the window, and logged at
// warn once per window (the caller, never the ids it asked for).
//
// Windows are fixed, as for the call budgets. Counting is per node and in
// memory: with N nodes a walker spread over all of them gets up to N × max.
//
// Memory is bounded three ways: at most `maxCallers` callers, at most
// `maxSubjectsPerCaller` ids kept per caller, and at most
// `maxTrackedSubjects` ids in all. Past the first or the last, the least
// recently active caller is forgotten (its next read starts a fresh set: a
// walker gains a new allowance only while more callers than that are active).
// Past the per-caller cap, further new ids are counted without being kept, so
// re-reading one of them counts again: a policy `max` above that cap refuses
// early rather than late.
import type { Logger } from '../log';
import type { BudgetVerdict, EnumerationGuard, RateRule } from './contracts';
import { SILENT_ACCESS_OBSERVER, type AccessObserver } from './observer';

export interface EnumerationGuardOptions {
  readonly logger: Logger;
  readonly observer?: AccessObserver;
  readonly maxCallers?: number;
  readonly maxSubjectsPerCaller?: number;
  readonly maxTrackedSubjects?: number;
}

export interface BoundedEnumerationGuard extends EnumerationGuard {
  /** Callers tracked. */
  readonly callers: number;
  /** Subject ids kept, all callers together. */
  readonly trackedSubjects: number;
}

export const DEFAULT_MAX_CALLERS = 50_000;
export const DEFAULT_MAX_SUBJECTS_PER_CALLER = 10_000;
export const DEFAULT_MAX_TRACKED_SUBJECTS = 500_000;

interface Walk {
  windowStart: number;
  subjects: Set<string>;
  /** New subjects counted past the per-caller cap, not kept. */
  overflow: number;
  warned: boolean;
}

export function createEnumerationGuard(options: EnumerationGuardOptions): BoundedEnumerationGuard {
  const { logger } = options;
  const observer = options.observer ?? SILENT_ACCESS_OBSERVER;
  const maxCallers = Math.max(1, options.maxCallers ?? DEFAULT_MAX_CALLERS);
  const perCaller = Math.max(1, options.maxSubjectsPerCaller ?? DEFAULT_MAX_SUBJECTS_PER_CALLER);
  const maxTracked = Math.max(1, options.maxTrackedSubjects ?? DEFAULT_MAX_TRACKED_SUBJECTS);
  // Insertion order is recency order: a caller seen again is moved to the end.
  const walks = new Map<string, Walk>();
  let tracked = 0;

  const forget = (id: string, walk: Walk) => {
    walks.delete(id);
    tracked -= walk.subjects.size;
  };
  const evictOldest = (): boolean => {
    const oldest = walks.entries().next().value;
    if (oldest === undefined) return false;
    forget(oldest[0], oldest[1]);
    observer.evicted('enumeration', 1);
    return true;
  };

  return {
    get callers() {
      return walks.size;
    },
    get trackedSubjects() {
      return tracked;
    },
    note(caller: string, subject: string, rule: RateRule, nowMs: number): BudgetVerdict {
      const id = `${rule.windowMs}|${caller}`;
      const windowStart = nowMs - (nowMs % rule.windowMs);
      let walk = walks.get(id);
      if (walk !== undefined) walks.delete(id);
      if (walk === undefined || windowStart > walk.windowStart) {
        if (walk !== undefined) tracked -= walk.subjects.size;
        walk = { windowStart, subjects: new Set(), overflow: 0, warned: false };
      }
      walks.set(id, walk);
      while (walks.size > maxCallers && evictOldest());

      if (walk.subjects.has(subject)) return { ok: true };
      if (walk.subjects.size + walk.overflow >= rule.max) {
        if (!walk.warned) {
          walk.warned = true;
          // The caller only: the ids it asked for stay out of the log.
          logger.warn(
            { caller, distinct: walk.subjects.size + walk.overflow, max: rule.max, windowSeconds: rule.windowMs / 1000 },
            'access: caller read too many distinct subjects in the window; refused until the window ends',
          );
        }
        observer.refused('enumeration');
        return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((walk.windowStart + rule.windowMs - nowMs) / 1000)) };
      }
      if (walk.subjects.size >= perCaller) {
        walk.overflow++;
        return { ok: true };
      }
      walk.subjects.add(subject);
      tracked++;
      // Never this caller itself (it is the most recent): a caller alone past the cap keeps its set.
      while (tracked > maxTracked && walks.size > 1 && evictOldest());
      return { ok: true };
    },
  };
}
