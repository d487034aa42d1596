// Readiness as gauges, worked out when Prometheus scrapes: the same checks
// `/readyz` runs (src/health/readiness.ts, handed in by the service), so an
// alert sees what the load balancer sees without probing it.
import { Gauge, type Registry } from 'prom-client';

/** What the readiness checks found: the whole and each check (store, migrations, worker, shutdown). */
export interface ReadinessReport {
  readonly status: 'pass' | 'fail';
  readonly checks: Readonly<Record<string, { readonly status: 'pass' | 'fail' }>>;
}

export type ReadinessProbe = () => Promise<ReadinessReport>;

export function registerReadinessMetrics(registry: Registry, probe: ReadinessProbe): void {
  // prom-client starts every metric's collect in one synchronous pass, so the
  // two gauges of a scrape share the run under way; the next scrape runs anew.
  let running: Promise<ReadinessReport> | null = null;
  const failed: ReadinessReport = { status: 'fail', checks: {} };
  const report = (): Promise<ReadinessReport> => {
    running ??= probe()
      .catch(() => failed)
      .finally(() => (running = null));
    return running;
  };
  new Gauge({
    name: 'notify_ready',
    help: 'Whether /readyz would answer 200 (1) or 503 (0) at this scrape.',
    registers: [registry],
    async collect() {
      const found = await report();
      this.set(found.status === 'pass' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'notify_readiness_check',
    help: 'Each readiness check at this scrape (store, migrations, worker, shutdown): 1 passed, 0 failed.',
    labelNames: ['check'],
    registers: [registry],
    async collect() {
      const found = await report();
      // A check that is not run this time (the others during a shutdown) has no value rather than a stale one.
      this.reset();
      for (const [check, result] of Object.entries(found.checks))
        this.labels(check).set(result.status === 'pass' ? 1 : 0);
    },
  });
}
