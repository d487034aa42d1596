// The delivery worker reports every attempt through DeliveryObserver
// (src/delivery/observer.ts); this one counts them for Prometheus.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DeliveryObserver } from '../delivery/observer';
import { MAX_FCM_PROJECTS } from '../delivery/push/fcm/fcm-projects';
import { boundedCode, childCache } from './labels';

// Provider calls: tens of milliseconds to a few seconds, up to their timeout.
const BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createDeliveryMetrics(registry: Registry): DeliveryObserver {
  const deliveries = new Counter({
    name: 'notify_deliveries_total',
    help: 'Delivery attempts by channel (push, sms), provider and outcome (sent, retry, dead).',
    labelNames: ['channel', 'provider', 'outcome'] as const,
    registers: [registry],
  });
  const errors = new Counter({
    name: 'notify_delivery_errors_total',
    help: 'Failed delivery attempts by channel, provider and the provider error code.',
    labelNames: ['channel', 'provider', 'code'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'notify_delivery_duration_seconds',
    help: 'Time of one provider call, by channel and provider.',
    labelNames: ['channel', 'provider'] as const,
    buckets: BUCKETS,
    registers: [registry],
  });
  const inFlight = new Gauge({
    name: 'notify_delivery_in_flight',
    help: 'Provider calls under way, by channel and provider.',
    labelNames: ['channel', 'provider'] as const,
    registers: [registry],
  });
  const limit = new Gauge({
    name: 'notify_delivery_concurrency_limit',
    help: 'Provider calls allowed in flight by the adaptive limit (docs/delivery.md#concurrency), by channel and provider.',
    labelNames: ['channel', 'provider'] as const,
    registers: [registry],
  });
  // FCM_PROJECTS: the same attempts again by project, only where there are several (docs/delivery.md#fcm-credentials).
  const byProject = new Counter({
    name: 'notify_fcm_project_deliveries_total',
    help: 'Push attempts through FCM by project (default, or a name in FCM_PROJECTS) and outcome; only with FCM_PROJECTS.',
    labelNames: ['project', 'outcome'] as const,
    registers: [registry],
  });
  const projectDuration = new Histogram({
    name: 'notify_fcm_project_duration_seconds',
    help: 'Time of one FCM call by project; only with FCM_PROJECTS.',
    labelNames: ['project'] as const,
    buckets: BUCKETS,
    registers: [registry],
  });
  // The configured names bound it already (at most 32 and the default); this guards against anything else.
  const project = boundedCode(MAX_FCM_PROJECTS + 1);
  const projectChild = childCache((v) => byProject.labels(v[0] ?? '', v[1] ?? ''));
  const projectDurationChild = childCache((v) => projectDuration.labels(v[0] ?? ''));
  const provider = boundedCode(20);
  const errorCode = boundedCode(100);
  const deliveryChild = childCache((v) => deliveries.labels(v[0] ?? '', v[1] ?? '', v[2] ?? ''));
  const durationChild = childCache((v) => duration.labels(v[0] ?? '', v[1] ?? ''));
  const inFlightChild = childCache((v) => inFlight.labels(v[0] ?? '', v[1] ?? ''));
  const limitChild = childCache((v) => limit.labels(v[0] ?? '', v[1] ?? ''));

  return {
    attempted(attempt) {
      const name = provider(attempt.provider);
      deliveryChild(attempt.channel, name, attempt.outcome).inc();
      durationChild(attempt.channel, name).observe(Math.max(0, attempt.durationMs) / 1000);
      if (attempt.errorCode !== null) errors.labels(attempt.channel, name, errorCode(attempt.errorCode)).inc();
      if (attempt.project !== undefined) {
        const projectName = project(attempt.project);
        projectChild(projectName, attempt.outcome).inc();
        projectDurationChild(projectName).observe(Math.max(0, attempt.durationMs) / 1000);
      }
    },
    concurrency(state) {
      const name = provider(state.provider);
      inFlightChild(state.channel, name).set(state.inFlight);
      limitChild(state.channel, name).set(state.limit);
    },
  };
}
