// Prometheus metrics (prom-client): requests, faults and latency from the
// request observer, outbox depth and age from the store, deliveries from the
// delivery worker's observer, readiness and the AuthCode global limits worked
// out at each scrape, and Node's process metrics.
import type { RequestHandler } from 'express';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { AccessObserver } from '../access/observer';
import type { DeliveryObserver } from '../delivery/observer';
import { createAccessMetrics } from './access-metrics';
import { registerAuthCodeMetrics, type AuthCodeCountSource } from './auth-code-metrics';
import { createDeliveryMetrics } from './delivery-metrics';
import type { EventObserver } from '../delivery/events/event-worker';
import { createEventMetrics, registerEventSubscriptionMetrics, type EventSubscriptionSource } from './event-metrics';
import { metricsRoute } from './metrics-route';
import { registerOutboxMetrics, type OutboxStatsSource } from './outbox-metrics';
import { registerReadinessMetrics, type ReadinessProbe } from './readiness-metrics';
import { createRequestMetrics, type RequestMetrics } from './request-metrics';
import type { AuthCodeLimit } from '../store';
import {
  createRecordingMetrics,
  createShadowMetrics,
  type RecordingMetrics,
  type ShadowMetrics,
} from './migration-metrics';

export type { RequestMetrics, RequestObservation } from './request-metrics';
export type { OutboxStatsSource } from './outbox-metrics';
export type { ReadinessProbe, ReadinessReport } from './readiness-metrics';
export type { AuthCodeCountSource } from './auth-code-metrics';
export type { RecordingMetrics, RecordingResult, ShadowMetrics, ShadowOutcome } from './migration-metrics';
export { createDeliveryMetrics } from './delivery-metrics';
export { createAccessMetrics } from './access-metrics';

export interface Metrics {
  readonly registry: Registry;
  /** Fed by the request observer. */
  readonly requests: RequestMetrics;
  /** Hand this to the delivery worker: it counts every attempt. */
  readonly delivery: DeliveryObserver;
  /** Hand this to the event worker: it counts every delivery event's attempt. */
  readonly events: EventObserver;
  /** Hand this to the call budgets, the enumeration guard, the audit trail and the gate. */
  readonly access: AccessObserver;
  /** Fed by the shadow calls (SHADOW_URL). */
  readonly shadow: ShadowMetrics;
  /** Fed by the request recording (RECORD_REQUESTS). */
  readonly recording: RecordingMetrics;
  /** `GET /metrics`, to mount on an app. */
  readonly route: RequestHandler;
}

export interface MetricsOptions {
  /** Where the outbox gauges read from; left out, there are none (a process without a store). */
  readonly outbox?: OutboxStatsSource & Partial<EventSubscriptionSource>;
  /** The readiness checks of `/readyz`, run at each scrape (`notify_ready`); left out, no such gauges (a worker alone). */
  readonly readiness?: ReadinessProbe;
  /** Where the service-wide AuthCode limits are counted, and the limits; left out, no such gauges. */
  readonly authCodes?: { readonly source: AuthCodeCountSource; readonly limits: readonly AuthCodeLimit[] };
  /** Node's process metrics (CPU, memory, event loop, GC); on unless false. */
  readonly processMetrics?: boolean;
}

/** One registry per service, so that two services in one process (tests) do not share counters. */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  if (options.outbox !== undefined) registerOutboxMetrics(registry, options.outbox);
  if (options.outbox?.eventSubscriptionStates !== undefined)
    registerEventSubscriptionMetrics(registry, options.outbox as EventSubscriptionSource);
  if (options.readiness !== undefined) registerReadinessMetrics(registry, options.readiness);
  if (options.authCodes !== undefined)
    registerAuthCodeMetrics(registry, options.authCodes.source, options.authCodes.limits);
  return {
    registry,
    requests: createRequestMetrics(registry),
    delivery: createDeliveryMetrics(registry),
    events: createEventMetrics(registry),
    access: createAccessMetrics(registry),
    shadow: createShadowMetrics(registry),
    recording: createRecordingMetrics(registry),
    route: metricsRoute(registry),
  };
}
