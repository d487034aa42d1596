// Access control in /metrics: audited reads by endpoint, operation and
// outcome, refusals by reason (the budgets and the guard report their own),
// dropped audit entries, and failed merges of the budgets.
import { createAuditTrail } from '../../src/access/audit-trail';
import { createCallBudgets } from '../../src/access/call-budgets';
import { createEnumerationGuard } from '../../src/access/enumeration-guard';
import { createMetrics } from '../../src/metrics';
import { parseMetrics, sampleValue } from '../support/prometheus';
import { capturingLogger } from '../support/logs';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');

describe('access metrics', () => {
  it('counts audited reads, refusals by reason, dropped entries and failed merges', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const { logger } = capturingLogger();
    const observer = metrics.access;

    const trail = createAuditTrail({
      store: { insertAuditEntries: () => Promise.reject(new Error('store down')) },
      logger,
      observer,
      batchSize: 1,
      maxBuffered: 2,
    });
    const base = {
      at: new Date(T0),
      address: '10.0.0.1',
      user: null,
      subjectKind: 'student' as const,
      subject: '1001',
      reason: null,
    };
    for (let i = 0; i < 3; i++)
      trail.record({
        ...base,
        endpoint: 'NotificationNotes.asmx',
        operation: 'GetStudentsAbcenceByID',
        outcome: 'allowed',
      });
    trail.record({
      ...base,
      endpoint: 'PushNotificationMobile.asmx',
      operation: 'GetTokenDevice',
      outcome: 'refused',
      reason: 'limit',
    });
    await trail.flush();

    const budgets = createCallBudgets({
      store: {
        dialect: 'postgres',
        mergeAccessCounters: () => Promise.reject(new Error('store down')),
        pruneAccessCounters: async () => 0,
      },
      logger,
      observer,
      now: () => T0,
    });
    const rule = { max: 1, windowMs: 60_000 };
    budgets.take('E/Op', 'a', rule, T0);
    budgets.take('E/Op', 'a', rule, T0);
    await budgets.sync();

    const guard = createEnumerationGuard({ logger, observer });
    guard.note('E/Op', 'a', '1', rule, T0);
    guard.note('E/Op', 'a', '2', rule, T0);
    observer.refused('network');

    const samples = parseMetrics(await metrics.registry.metrics());
    expect(
      sampleValue(samples, 'access_audit_entries_total', {
        endpoint: 'NotificationNotes.asmx',
        operation: 'GetStudentsAbcenceByID',
        outcome: 'allowed',
      }),
    ).toBe(3);
    expect(
      sampleValue(samples, 'access_audit_entries_total', {
        endpoint: 'PushNotificationMobile.asmx',
        operation: 'GetTokenDevice',
        outcome: 'refused',
      }),
    ).toBe(1);
    expect(sampleValue(samples, 'access_refusals_total', { reason: 'limit' })).toBe(1);
    expect(sampleValue(samples, 'access_refusals_total', { reason: 'enumeration' })).toBe(1);
    expect(sampleValue(samples, 'access_refusals_total', { reason: 'network' })).toBe(1);
    expect(sampleValue(samples, 'access_audit_dropped_total')).toBe(2);
    expect(sampleValue(samples, 'access_audit_write_failures_total')).toBeGreaterThanOrEqual(1);
    expect(sampleValue(samples, 'access_budget_sync_failures_total')).toBe(1);
  });

  it('shows every refusal reason at 0 before the first refusal, so that the first one is an increase', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const samples = parseMetrics(await metrics.registry.metrics());
    const reasons = samples.filter((s) => s.name === 'access_refusals_total');
    expect(reasons.map((s) => [s.labels.reason, s.value]).sort()).toEqual([
      ['auth', 0],
      ['enumeration', 0],
      ['limit', 0],
      ['network', 0],
    ]);
  });

  it('folds label values that are not shaped like names into other', () => {
    const metrics = createMetrics({ processMetrics: false });
    metrics.access.audited({
      at: new Date(T0),
      address: null,
      user: null,
      endpoint: 'x y <script>',
      operation: 'GetTokenDevice',
      subjectKind: null,
      subject: null,
      outcome: 'allowed',
      reason: null,
    });
    return metrics.registry.metrics().then((text) => {
      expect(
        sampleValue(parseMetrics(text), 'access_audit_entries_total', {
          endpoint: 'other',
          operation: 'GetTokenDevice',
        }),
      ).toBe(1);
    });
  });
});
