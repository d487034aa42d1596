// Readiness: route traffic here only while the store answers, its schema is
// the one this release expects, and the process is not shutting down. Each
// check is bounded in time: a probe that hangs is as bad as one that fails.
import type { MigrationStatus } from '../store';

export interface ReadinessSource {
  ping(): Promise<boolean>;
  migrationStatus(): Promise<MigrationStatus>;
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
}

export async function checkReadiness(options: ReadinessOptions): Promise<Readiness> {
  if (options.draining?.() === true) {
    return { status: 'fail', checks: { shutdown: { status: 'fail', output: 'The service is shutting down.' } } };
  }
  const [store, migrations] = await Promise.all([
    bounded(options.timeoutMs, async (): Promise<Check> =>
      (await options.store.ping()) ? { status: 'pass' } : { status: 'fail', output: 'The data store does not answer.' },
    ),
    bounded(options.timeoutMs, async (): Promise<Check> => {
      const state = await options.store.migrationStatus();
      return state.current
        ? { status: 'pass', output: `applied: ${state.applied.join(', ')}` }
        : { status: 'fail', output: `pending migrations: ${state.pending.join(', ')}` };
    }),
  ]);
  return { status: store.status === 'pass' && migrations.status === 'pass' ? 'pass' : 'fail', checks: { store, migrations } };
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
