// Readiness: route traffic here only while the store answers, its schema is
// the one this release expects, the process is not shutting down, and its
// delivery worker (when it runs one) is running and keeping up. Each check is
// bounded in time: a probe that hangs is as bad as one that fails.
import type { MigrationStatus } from '../store';

export interface ReadinessSource {
  ping(): Promise<boolean>;
  migrationStatus(): Promise<MigrationStatus>;
}

/** The in-process delivery worker, as readiness sees it. */
export interface WorkerReadinessSource {
  health(): { readonly running: boolean; readonly startedAt: Date | null; readonly lastClaimAt: Date | null };
  /** When the longest-waiting due message came due (ISO time), or null. */
  oldestDueAt(): Promise<string | null>;
  /** No claim for longer than this while work is due: stuck. */
  readonly stallMs: number;
  readonly now?: () => Date;
}

export type CheckStatus = 'pass' | 'fail';

export interface Check {
  readonly status: CheckStatus;
  readonly output?: string;
}

export interface Readiness {
  readonly status: CheckStatus;
  readonly checks: Readonly<Record<string, Check>>;
}

export interface ReadinessOptions {
  readonly store: ReadinessSource;
  /** Longest one check may take before it counts as failed. */
  readonly timeoutMs: number;
  /** True once a graceful shutdown began: the load balancer should stop sending requests. */
  readonly draining?: () => boolean;
  /** The delivery worker of this process, when it runs one. */
  readonly worker?: WorkerReadinessSource;
}

export async function checkReadiness(options: ReadinessOptions): Promise<Readiness> {
  if (options.draining?.() === true) {
    return { status: 'fail', checks: { shutdown: { status: 'fail', output: 'The service is shutting down.' } } };
  }
  const worker = options.worker;
  const [store, migrations, delivery] = await Promise.all([
    bounded(options.timeoutMs, async (): Promise<Check> =>
      (await options.store.ping()) ? { status: 'pass' } : { status: 'fail', output: 'The data store does not answer.' },
    ),
    bounded(options.timeoutMs, async (): Promise<Check> => {
      const state = await options.store.migrationStatus();
      return state.current
        ? { status: 'pass', output: `applied: ${state.applied.join(', ')}` }
        : { status: 'fail', output: `pending migrations: ${state.pending.join(', ')}` };
    }),
    worker === undefined ? null : bounded(options.timeoutMs, () => checkWorker(worker)),
  ]);
  const checks: Record<string, Check> = { store, migrations };
  if (delivery !== null) checks.worker = delivery;
  return { status: Object.values(checks).every((check) => check.status === 'pass') ? 'pass' : 'fail', checks };
}

// Stopped: its loop ended (or it was never started). Stuck: it has not run a
// claim for `stallMs` while a message is due. An idle worker claims at least
// once per poll, and a busy one each time half its sends are done (each is
// bounded by DELIVERY_TIMEOUT_MS), so a long silence with work waiting means
// it hangs. The store is only asked when the worker has been silent.
async function checkWorker(worker: WorkerReadinessSource): Promise<Check> {
  const { running, startedAt, lastClaimAt } = worker.health();
  if (!running) return { status: 'fail', output: 'The delivery worker has stopped.' };
  const now = (worker.now ?? (() => new Date()))();
  const since = lastClaimAt ?? startedAt;
  const silentMs = since === null ? Infinity : now.getTime() - since.getTime();
  if (silentMs <= worker.stallMs) return { status: 'pass' };
  const due = await worker.oldestDueAt();
  if (due === null) return { status: 'pass' };
  const silence = since === null ? 'since it started' : `for ${Math.round(silentMs / 1000)} s`;
  return {
    status: 'fail',
    output: `The delivery worker has claimed nothing ${silence} while messages are due (the oldest since ${due}).`,
  };
}

async function bounded(timeoutMs: number, check: () => Promise<Check>): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Check>((resolve) => {
    timer = setTimeout(() => resolve({ status: 'fail', output: `No answer within ${timeoutMs} ms.` }), timeoutMs);
  });
  try {
    return await Promise.race([check().catch((err: unknown) => failed(err)), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// The store's errors carry messages safe to show; anything else stays vague.
function failed(err: unknown): Check {
  const message = err instanceof Error && err.name === 'StoreError' ? err.message : 'The check failed.';
  return { status: 'fail', output: message };
}
