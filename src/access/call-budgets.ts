// Per-caller call budgets (`limit` in an access policy; docs/access-limits.md).
//
// Counting is in memory, O(1) per call, and never waits on the store. Windows
// are fixed (aligned to multiples of their length since the epoch), so that
// every node agrees on which window a call falls in without talking.
//
// On PostgreSQL several nodes share the budgets: every `syncIntervalMs` each
// node adds what it counted since its last merge to `access_counters` and
// reads back the merged totals of the windows it is counting, and of the
// busiest counters of the other nodes (one transaction, see
// src/store/audit-and-counters/access-counters.ts). A node admits a call while its own count
// plus the others' counts as of its last merge is below the budget. A burst
// spread over N nodes can therefore overshoot by what the other nodes admitted
// that this node had not yet seen merged (about one or two intervals' worth
// of their calls), and never by more than (N - 1) × max per window. A caller
// outside the `maxRemoteEntries` busiest counters is seen by a node only once
// it calls there (its spend elsewhere then arrives at the next merge). On
// SQLite there is one node and no merge.
//
// Memory is bounded: at most `maxEntries` (caller, budget) counters are
// kept, in two generations (generations.ts): a caller is forgotten once half
// that many other counters were created or used since its last call. Its next
// call then starts from zero on this node (what it had not merged yet is
// lost; what other nodes counted comes back at the next merge).
import type { Logger } from '../log';
import type { CounterDelta, CounterMerge, CounterWindow } from '../store';
import { counterTotalKey } from '../store';
import type { BudgetVerdict, CallBudgets, RateRule } from './contracts';
import { GenerationMap } from './generations';
import { SILENT_ACCESS_OBSERVER, type AccessObserver } from './observer';

/** What the budgets need of the store (the opened store has it). */
export interface BudgetStore {
  readonly dialect: 'sqlite' | 'postgres';
  mergeAccessCounters(merge: CounterMerge): Promise<Map<string, number>>;
  pruneAccessCounters(before: string): Promise<number>;
}

export interface CallBudgetsOptions {
  /** Shares the budgets with the other nodes when it is PostgreSQL; left out or SQLite: this process alone. */
  readonly store?: BudgetStore | null;
  readonly logger: Logger;
  readonly observer?: AccessObserver;
  /** How often counts are merged with the other nodes' (ACCESS_SYNC_INTERVAL_MS). */
  readonly syncIntervalMs?: number;
  /** Most (caller, budget) counters kept in memory. */
  readonly maxEntries?: number;
  /**
   * Most counters of other nodes' callers read at each merge (the busiest
   * first), so that a caller new to this node starts from what it spent on
   * the others.
   */
  readonly maxRemoteEntries?: number;
  /** The clock of the merges (which windows are over); tests pin it. */
  readonly now?: () => number;
}

export interface SharedCallBudgets extends CallBudgets {
  /** True when counts are merged through the store. */
  readonly shared: boolean;
  /** Counters held in memory. */
  readonly size: number;
  /** One merge now (start() runs them on the interval; stop() runs a last one). */
  sync(): Promise<void>;
}

export const DEFAULT_SYNC_INTERVAL_MS = 2000;
export const DEFAULT_MAX_BUDGET_ENTRIES = 100_000;
export const DEFAULT_MAX_REMOTE_ENTRIES = 10_000;
// Counter rows are deleted this long after their window ended.
const ROW_GRACE_MS = 60_000;
const PRUNE_EVERY_MS = 60_000;

interface Counter {
  /** `<window ms>|<budget>|<caller>`, the store's key. */
  readonly id: string;
  readonly windowMs: number;
  windowStart: number;
  /** Calls this node admitted in the window. */
  count: number;
  /** Of `count`, those not yet added to the store. */
  pending: number;
  /** Of `count`, those the store has. */
  merged: number;
  /** The other nodes' calls in the window, as of the last merge. */
  others: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function createCallBudgets(options: CallBudgetsOptions): SharedCallBudgets {
  const store = options.store?.dialect === 'postgres' ? options.store : null;
  const observer = options.observer ?? SILENT_ACCESS_OBSERVER;
  const { logger } = options;
  const now = options.now ?? Date.now;
  const intervalMs = options.syncIntervalMs ?? DEFAULT_SYNC_INTERVAL_MS;
  const maxEntries = Math.max(1, options.maxEntries ?? DEFAULT_MAX_BUDGET_ENTRIES);
  const maxRemote = Math.max(0, options.maxRemoteEntries ?? DEFAULT_MAX_REMOTE_ENTRIES);
  // The merged totals of the last merge, for counters this node starts afresh.
  let remote = new Map<string, number>();
  const counters = new GenerationMap<Counter>(Math.ceil(maxEntries / 2), (dropped) =>
    observer.evicted('budget', dropped.size),
  );
  let timer: NodeJS.Timeout | undefined;
  let syncing: Promise<void> | null = null;
  let failing = false;
  let lastPruneMs = -Infinity;
  // Whether any call was counted since the start.
  let counted = false;

  // What the other nodes spent in a window this node starts counting, as of the last merge.
  const othersAtStart = (id: string, windowStart: number): number =>
    remote.size === 0 ? 0 : (remote.get(counterTotalKey({ counter: id, windowStart: iso(windowStart) })) ?? 0);

  const take = (key: string, caller: string, rule: RateRule, nowMs: number): BudgetVerdict => {
    const id = `${rule.windowMs}|${key}|${caller}`;
    const windowStart = nowMs - (nowMs % rule.windowMs);
    let counter = counters.get(id);
    if (counter === undefined) {
      counter = {
        id,
        windowMs: rule.windowMs,
        windowStart,
        count: 0,
        pending: 0,
        merged: 0,
        others: othersAtStart(id, windowStart),
      };
      counters.set(id, counter);
    } else if (windowStart > counter.windowStart) {
      Object.assign(counter, { windowStart, count: 0, pending: 0, merged: 0, others: othersAtStart(id, windowStart) });
    }
    if (counter.count + counter.others >= rule.max) {
      observer.refused('limit');
      return {
        ok: false,
        retryAfterSeconds: Math.max(1, Math.ceil((counter.windowStart + rule.windowMs - nowMs) / 1000)),
      };
    }
    counter.count++;
    counted = true;
    if (store !== null) counter.pending++;
    return { ok: true };
  };

  const spent = (key: string, caller: string, rule: RateRule, nowMs: number): BudgetVerdict => {
    const counter = counters.get(`${rule.windowMs}|${key}|${caller}`);
    const windowStart = nowMs - (nowMs % rule.windowMs);
    if (counter === undefined || counter.windowStart < windowStart || counter.count + counter.others < rule.max)
      return { ok: true };
    return {
      ok: false,
      retryAfterSeconds: Math.max(1, Math.ceil((counter.windowStart + rule.windowMs - nowMs) / 1000)),
    };
  };

  const merge = async (shared: BudgetStore): Promise<void> => {
    const at = now();
    const deltas: CounterDelta[] = [];
    const reads: CounterWindow[] = [];
    const sent: { counter: Counter; windowStart: number; delta: number; window: CounterWindow }[] = [];
    for (const [, counter] of counters.entries()) {
      if (counter.windowStart + counter.windowMs <= at) {
        // Its window is over: nothing to merge, and its next call starts afresh.
        counters.delete(counter.id);
        continue;
      }
      const window = { counter: counter.id, windowStart: iso(counter.windowStart) };
      const delta = counter.pending;
      if (delta > 0) deltas.push({ ...window, windowEnd: iso(counter.windowStart + counter.windowMs), delta });
      else reads.push(window);
      counter.pending = 0;
      sent.push({ counter, windowStart: counter.windowStart, delta, window });
    }
    if (sent.length === 0 && maxRemote === 0) return;
    let totals: Map<string, number>;
    try {
      totals = await shared.mergeAccessCounters({ deltas, reads, busiest: { at: iso(at), limit: maxRemote } });
    } catch (error) {
      // Nothing was added (one transaction): keep the deltas for the next merge.
      for (const { counter, windowStart, delta } of sent)
        if (counter.windowStart === windowStart) counter.pending += delta;
      observer.budgetSyncFailed();
      if (!failing)
        logger.warn(
          { err: error },
          'call budgets: merge with the other nodes failed; counting on this node alone until it works again',
        );
      failing = true;
      return;
    }
    if (failing) logger.info('call budgets: merging with the other nodes again');
    failing = false;
    remote = totals;
    for (const { counter, windowStart, delta, window } of sent) {
      // A window that rolled over meanwhile starts from zero anyway.
      if (counter.windowStart !== windowStart) continue;
      counter.merged += delta;
      counter.others = Math.max(0, (totals.get(counterTotalKey(window)) ?? 0) - counter.merged);
    }
    if (at - lastPruneMs >= PRUNE_EVERY_MS) {
      lastPruneMs = at;
      await shared
        .pruneAccessCounters(iso(at - ROW_GRACE_MS))
        .catch((error: unknown) => logger.debug({ err: error }, 'call budgets: pruning old counters failed'));
    }
  };

  const sync = (): Promise<void> => {
    if (store === null) return Promise.resolve();
    // One merge at a time; a caller asking during one waits for it and then runs its own.
    const previous = syncing ?? Promise.resolve();
    const next = previous
      .then(() => merge(store))
      .catch((error: unknown) => logger.warn({ err: error }, 'call budgets: merge failed'));
    syncing = next.finally(() => {
      if (syncing === tracked) syncing = null;
    });
    const tracked = syncing;
    return next;
  };

  return {
    shared: store !== null,
    get size() {
      return counters.size;
    },
    take,
    spent,
    sync,
    start() {
      if (store === null || timer !== undefined) return;
      // A merge slower than the interval delays the next instead of queueing them.
      // Nor does a node merge before it has counted a call: one whose policy
      // sets no limit, or that no budgeted caller reached yet, costs the
      // store nothing (its first calls fall within the overshoot bound).
      timer = setInterval(() => {
        if (syncing === null && counted) void sync();
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      // The last counts of this node reach the others.
      await sync();
    },
  };
}
