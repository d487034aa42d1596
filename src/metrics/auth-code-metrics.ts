// How much of each service-wide AuthCode limit (AUTH_CODE_LIMIT_GLOBAL,
// docs/delivery.md#abuse-limits-on-authcode) the current window has spent,
// counted in the store when Prometheus scrapes, as the admission counts it:
// at the limit every login code is refused, so an alert should come before.
import { Gauge, type Registry } from 'prom-client';
import type { AuthCodeLimit } from '../store';

export interface AuthCodeCountSource {
  /** AuthCode messages queued after `since` (an ISO time). */
  countAuthCodesSince(since: string): Promise<number>;
}

/** The `window` label: the limit's window in seconds, as `3600s`. */
export function windowLabel(limit: AuthCodeLimit): string {
  return `${limit.windowSeconds}s`;
}

export function registerAuthCodeMetrics(
  registry: Registry,
  source: AuthCodeCountSource,
  limits: readonly AuthCodeLimit[],
  now: () => number = Date.now,
): void {
  const global = limits.filter((limit) => limit.scope === 'global');
  if (global.length === 0) return;
  new Gauge({
    name: 'notify_auth_code_global_limit',
    help: 'Login codes the whole service may queue in a window (AUTH_CODE_LIMIT_GLOBAL), by window.',
    labelNames: ['window'],
    registers: [registry],
    collect() {
      for (const limit of global) this.labels(windowLabel(limit)).set(limit.max);
    },
  });
  new Gauge({
    name: 'notify_auth_code_global_window_messages',
    help: 'Login codes queued in the last window of each service-wide limit (what the limit counts), by window.',
    labelNames: ['window'],
    registers: [registry],
    async collect() {
      const at = now();
      const counts = await Promise.all(
        global.map((limit) =>
          source.countAuthCodesSince(new Date(at - limit.windowSeconds * 1000).toISOString()).catch(() => null),
        ),
      );
      // A count the store could not give keeps its last value, as the outbox gauges do.
      global.forEach((limit, i) => {
        const count = counts[i];
        if (count !== null && count !== undefined) this.labels(windowLabel(limit)).set(count);
      });
    },
  });
}
