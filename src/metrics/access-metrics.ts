// Access control's counts (src/access/observer.ts) for Prometheus: audited
// reads, refusals by reason, audit entries the store could not take, and
// failed merges of the call budgets.
import { Counter, type Registry } from 'prom-client';
import type { AccessObserver, RefusalReason } from '../access/observer';
import { boundedCode, childCache } from './labels';

const REFUSAL_REASONS: readonly RefusalReason[] = ['network', 'auth', 'limit', 'enumeration'];

export function createAccessMetrics(registry: Registry): AccessObserver {
  const audited = new Counter({
    name: 'access_audit_entries_total',
    help: 'Reads of personal data recorded in the audit trail, by endpoint, operation and outcome (allowed, refused).',
    labelNames: ['endpoint', 'operation', 'outcome'] as const,
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'access_refusals_total',
    help: 'Calls refused by the access policy, by reason (network, auth, limit, enumeration).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const dropped = new Counter({
    name: 'access_audit_dropped_total',
    help: 'Audit entries dropped because the buffer was full while the store could not take them.',
    registers: [registry],
  });
  const writeFailures = new Counter({
    name: 'access_audit_write_failures_total',
    help: 'Writes of the audit trail to the store that failed (their entries stay buffered and are tried again).',
    registers: [registry],
  });
  const syncFailures = new Counter({
    name: 'access_budget_sync_failures_total',
    help: 'Merges of the call budgets with the other nodes through the store that failed (each node then counts alone).',
    registers: [registry],
  });
  const evictions = new Counter({
    name: 'access_tracked_callers_evicted_total',
    help: 'Callers forgotten to keep memory bounded, by what tracked them (budget, enumeration); their counts start again.',
    labelNames: ['tracker'] as const,
    registers: [registry],
  });
  // Endpoint and operation names come from the contract; the bound only guards against a mistake.
  const endpoint = boundedCode(20);
  const operation = boundedCode(50);
  const auditedChild = childCache((v) => audited.labels(v[0] ?? '', v[1] ?? '', v[2] ?? ''));
  const reason = boundedCode(10);
  // Every reason from 0, so that the first refusal of a process is an
  // increase Prometheus sees (a series born at 1 has no increase), and an
  // alert on it fires (deploy/prometheus/rules/alerts.yml).
  for (const known of REFUSAL_REASONS) refusals.labels(reason(known)).inc(0);

  return {
    audited(entry) {
      auditedChild(
        endpoint(entry.endpoint),
        operation(entry.operation),
        entry.outcome === 'refused' ? 'refused' : 'allowed',
      ).inc();
    },
    refused(why) {
      refusals.labels(reason(why)).inc();
    },
    auditDropped(count) {
      dropped.inc(count);
    },
    auditWriteFailed() {
      writeFailures.inc();
    },
    budgetSyncFailed() {
      syncFailures.inc();
    },
    evicted(what, count) {
      evictions.labels(what).inc(count);
    },
  };
}
