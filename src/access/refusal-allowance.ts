// How many refusals of one caller the audit trail keeps one by one
// (docs/access-limits.md#refusals-per-caller): at most `perWindow` per fixed
// window (a minute); past that they are counted, and one summary entry per
// caller and window says how many were left out. Allowed reads are never
// counted here: the policy's budgets bound them.
//
// The caller is the one the budgets know (the Basic user, else the address,
// an IPv6 address by its /64: caller-key.ts). Memory is bounded by
// `maxCallers`: past it the caller refused longest ago is forgotten, its
// summary given at once.
import { AUDIT_ADDRESS_MAX, AUDIT_USER_MAX, cutText } from './audit-bounds';
import { callerKey } from './caller-key';
import type { AuditEntry, AuditSubjectKind } from './contracts';

export const DEFAULT_REFUSALS_PER_WINDOW = 60;
export const DEFAULT_REFUSAL_WINDOW_MS = 60_000;
export const DEFAULT_REFUSAL_CALLERS = 10_000;
/** The endpoint and operation of a summary whose refusals were of several operations. */
export const SEVERAL = '*';

/** One caller's refusals left out in one window. */
// `at` and `address` are the last one's; `endpoint` and `operation` are `*`
// (SEVERAL) when they were of several.
export interface RefusalSummary extends Pick<
  AuditEntry,
  'at' | 'address' | 'user' | 'endpoint' | 'operation' | 'subjectKind'
> {
  readonly omitted: number;
}

export interface RefusalAllowanceOptions {
  readonly perWindow?: number;
  readonly windowMs?: number;
  readonly maxCallers?: number;
}

export interface RefusalAllowance {
  /** True: keep this refusal as an entry of its own; false: it was counted into its caller's summary. */
  admit(entry: AuditEntry): boolean;
  /** The summaries of the windows ended by `nowMs` (every one, ended or not, with Infinity); each is given once. */
  takeSummaries(nowMs: number): RefusalSummary[];
  /** Callers tracked now. */
  readonly tracked: number;
}

interface CallerWindow {
  windowStart: number;
  kept: number;
  omitted: number;
  /** The last refusal left out, without its subject: a caller's id may be a megabyte. */
  lastAt: Date;
  lastAddress: string | null;
  lastUser: string | null;
  endpoint: string;
  operation: string;
  subjectKind: AuditSubjectKind | null;
}

export function createRefusalAllowance(options: RefusalAllowanceOptions = {}): RefusalAllowance {
  const perWindow = Math.max(0, options.perWindow ?? DEFAULT_REFUSALS_PER_WINDOW);
  const windowMs = Math.max(1, options.windowMs ?? DEFAULT_REFUSAL_WINDOW_MS);
  const maxCallers = Math.max(1, options.maxCallers ?? DEFAULT_REFUSAL_CALLERS);
  // Insertion order is the order of each caller's latest refusal: the first is the one to forget.
  const callers = new Map<string, CallerWindow>();
  // Summaries of windows that ended, or of callers forgotten, not taken yet (at most one per caller and window).
  let ready: RefusalSummary[] = [];

  const summaryOf = (window: CallerWindow): RefusalSummary | null => {
    if (window.omitted === 0) return null;
    return {
      at: window.lastAt,
      address: window.lastAddress,
      user: window.lastUser,
      endpoint: window.endpoint,
      operation: window.operation,
      subjectKind: window.subjectKind,
      omitted: window.omitted,
    };
  };
  const close = (window: CallerWindow) => {
    const summary = summaryOf(window);
    if (summary !== null) ready.push(summary);
  };

  return {
    get tracked() {
      return callers.size;
    },
    admit(entry) {
      const at = Number.isNaN(entry.at.getTime()) ? Date.now() : entry.at.getTime();
      const key = entry.user ?? callerKey(entry.address === null ? null : cutText(entry.address, AUDIT_ADDRESS_MAX));
      const windowStart = Math.floor(at / windowMs) * windowMs;
      let window = callers.get(key);
      if (window !== undefined) {
        callers.delete(key);
        if (window.windowStart !== windowStart) {
          close(window);
          window = undefined;
        }
      }
      window ??= {
        windowStart,
        kept: 0,
        omitted: 0,
        lastAt: entry.at,
        lastAddress: null,
        lastUser: null,
        endpoint: entry.endpoint,
        operation: entry.operation,
        subjectKind: entry.subjectKind,
      };
      callers.set(key, window);
      if (callers.size > maxCallers) {
        const [oldest, forgotten] = callers.entries().next().value as [string, CallerWindow];
        callers.delete(oldest);
        close(forgotten);
      }
      if (window.kept < perWindow) {
        window.kept++;
        return true;
      }
      if (window.omitted === 0) {
        window.endpoint = entry.endpoint;
        window.operation = entry.operation;
        window.subjectKind = entry.subjectKind;
      } else {
        if (window.endpoint !== entry.endpoint) window.endpoint = SEVERAL;
        if (window.operation !== entry.operation) window.operation = SEVERAL;
        if (window.subjectKind !== entry.subjectKind) window.subjectKind = null;
      }
      window.omitted++;
      window.lastAt = entry.at;
      window.lastAddress = entry.address === null ? null : cutText(entry.address, AUDIT_ADDRESS_MAX);
      window.lastUser = entry.user === null ? null : cutText(entry.user, AUDIT_USER_MAX);
      return false;
    },
    takeSummaries(nowMs) {
      for (const [key, window] of callers) {
        if (window.windowStart + windowMs <= nowMs) {
          callers.delete(key);
          close(window);
        }
      }
      const taken = ready;
      ready = [];
      return taken;
    },
  };
}
