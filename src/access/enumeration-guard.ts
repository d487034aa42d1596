// Distinct subjects (students, devices) read per caller per window
// (`enumeration` in an access policy; docs/access-limits.md). A caller reading the
// same few subjects again and again is never refused; one walking through ids
// is refused once it has read `max` distinct ones in the window, and logged at
// warn once per window (the caller, never the ids it asked for).
//
// Windows are fixed, as for the call budgets. Counting is per node and in
// memory: with N nodes a walker spread over all of them gets up to N × max.
//
// Each operation's budget counts its own reads: walks are keyed by the
// operation as well as the caller and the window, so that reading absences
// does not spend (nor pre-pay) the budget of marking notes read.
//
// The ids are not kept, only a 48-bit digest of each (SHA-256 of a random
// per-process salt and the id, so that no caller can make two ids collide on
// purpose): an id sent a megabyte long costs the same few bytes as any other.
// A chance collision, about one in 10^7 between 10,000 ids, counts a new id
// as read: it can only refuse one read late, never early.
//
// Memory is bounded three ways: at most `maxCallers` callers (in two
// generations, generations.ts: a caller is forgotten once half that many
// others were seen since its last read), at most `maxSubjectsPerCaller` ids
// kept per caller, and about `maxTrackedSubjects` ids in all (past it, the
// callers not seen for the longest are forgotten a generation at a time). A
// forgotten caller's next read starts a fresh set: a walker gains a new
// allowance only while that many other callers are active. Past the
// per-caller cap, further new ids are counted without being kept, so
// re-reading one of them counts again: a policy `max` above that cap refuses
// early rather than late.
import { hash, randomBytes } from 'node:crypto';
import type { Logger } from '../log';
import type { BudgetVerdict, EnumerationGuard, RateRule } from './contracts';
import { GenerationMap } from './generations';
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
  /** Digests of the ids read (see the top of this file). */
  subjects: Set<number>;
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
  let tracked = 0;
  const salt = randomBytes(16).toString('base64');
  const digestOf = (subject: string): number => hash('sha256', salt + subject, 'buffer').readUIntBE(0, 6);
  const walks = new GenerationMap<Walk>(Math.ceil(maxCallers / 2), (dropped) => {
    for (const [, walk] of dropped) tracked -= walk.subjects.size;
    observer.evicted('enumeration', dropped.size);
  });

  return {
    get callers() {
      return walks.size;
    },
    get trackedSubjects() {
      return tracked;
    },
    note(key: string, caller: string, subject: string, rule: RateRule, nowMs: number): BudgetVerdict {
      const id = `${rule.windowMs}|${key}|${caller}`;
      const windowStart = nowMs - (nowMs % rule.windowMs);
      let walk = walks.get(id);
      if (walk === undefined) {
        walk = { windowStart, subjects: new Set(), overflow: 0, warned: false };
        walks.set(id, walk);
      } else if (windowStart > walk.windowStart) {
        tracked -= walk.subjects.size;
        Object.assign(walk, { windowStart, subjects: new Set(), overflow: 0, warned: false });
      }

      const digest = digestOf(subject);
      if (walk.subjects.has(digest)) return { ok: true };
      if (walk.subjects.size + walk.overflow >= rule.max) {
        if (!walk.warned) {
          walk.warned = true;
          // The caller only: the ids it asked for stay out of the log.
          logger.warn(
            {
              caller,
              budget: key,
              distinct: walk.subjects.size + walk.overflow,
              max: rule.max,
              windowSeconds: rule.windowMs / 1000,
            },
            'access: caller read too many distinct subjects in the window; refused until the window ends',
          );
        }
        observer.refused('enumeration');
        return {
          ok: false,
          retryAfterSeconds: Math.max(1, Math.ceil((walk.windowStart + rule.windowMs - nowMs) / 1000)),
        };
      }
      if (walk.subjects.size >= perCaller) {
        walk.overflow++;
        return { ok: true };
      }
      walk.subjects.add(digest);
      tracked++;
      // Drops the callers not seen since the last rotation. This caller is
      // in the current generation (get() moved it there), so it is kept
      // until a later rotation.
      if (tracked > maxTracked) walks.rotate();
      return { ok: true };
    },
  };
}
