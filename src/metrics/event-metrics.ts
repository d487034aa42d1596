// Delivery events to the schools' systems (docs/delivery.md#delivery-events):
// each attempt counted by outcome, as the event worker reports it, and the
// subscriptions by state, read from the store when Prometheus scrapes (the
// store's figures, shared by every process).
import { Counter, Gauge, type Registry } from 'prom-client';
import type { EventObserver } from '../delivery/events/event-worker';
import type { EventSubscriptionState } from '../store';

export interface EventSubscriptionSource {
  eventSubscriptionStates(): Promise<Readonly<Record<EventSubscriptionState, number>>>;
}

const STATES: readonly EventSubscriptionState[] = ['active', 'failing', 'disabled'];

export function createEventMetrics(registry: Registry): EventObserver {
  const attempts = new Counter({
    name: 'notify_events_total',
    help: "Delivery event attempts to the schools' systems by outcome (sent, retry, gone: the receiver answered 410).",
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  return {
    eventAttempted(attempt) {
      attempts.labels(attempt.outcome).inc();
    },
  };
}

export function registerEventSubscriptionMetrics(registry: Registry, source: EventSubscriptionSource): void {
  new Gauge({
    name: 'notify_event_subscriptions',
    help: "Schools' event subscriptions by state (active, failing, disabled).",
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      // A store that cannot answer leaves the last figures; the outbox gauges count the failed reads.
      const counts = await source.eventSubscriptionStates().catch(() => null);
      if (counts !== null) for (const state of STATES) this.labels(state).set(counts[state]);
    },
  });
}
