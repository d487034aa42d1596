// The gauges worked out when Prometheus scrapes, which the alert rules
// (deploy/prometheus/rules/alerts.yml) read: readiness, how long the oldest
// due message has waited, and how much of the service-wide AuthCode limit the
// window has spent. Each on a real store, and their arithmetic on fakes.
import { Registry } from 'prom-client';
import request from 'supertest';
import { registerAuthCodeMetrics } from '../../src/metrics/auth-code-metrics';
import { registerOutboxMetrics, type OutboxStatsSource } from '../../src/metrics/outbox-metrics';
import { registerReadinessMetrics, type ReadinessReport } from '../../src/metrics/readiness-metrics';
import type { OutboxChannelStats } from '../../src/store';
import { parseMetrics, sampleValue, type Sample } from '../support/prometheus';
import { startOperatedService, type OperatedService } from '../support/operated-service';
import { storeVariants } from '../support/stores';
import { httpPost } from '../support/wire';

async function scrape(service: OperatedService): Promise<Sample[]> {
  const res = await request(service.app).get('/metrics');
  expect(res.status).toBe(200);
  return parseMetrics(res.text);
}

async function samplesOf(registry: Registry): Promise<Sample[]> {
  return parseMetrics(await registry.metrics());
}

describe.each(storeVariants())('scrape-time gauges on $name', (variant) => {
  let service: OperatedService;
  afterEach(() => service.stop());

  it('reports readiness and each check, and their failure when the store goes away', async () => {
    service = await startOperatedService(variant);
    const up = await scrape(service);
    expect(sampleValue(up, 'notify_ready')).toBe(1);
    expect(sampleValue(up, 'notify_readiness_check', { check: 'store' })).toBe(1);
    expect(sampleValue(up, 'notify_readiness_check', { check: 'migrations' })).toBe(1);

    await service.testStore.store.lifecycle.close();
    const down = await scrape(service);
    expect(sampleValue(down, 'notify_ready')).toBe(0);
    expect(sampleValue(down, 'notify_readiness_check', { check: 'store' })).toBe(0);
  });

  it('reports the oldest due message per channel and the AuthCode global window', async () => {
    service = await startOperatedService(variant, { AUTH_CODE_LIMIT_GLOBAL: '50/1h,500/1d' });
    const before = await scrape(service);
    expect(sampleValue(before, 'notify_outbox_oldest_due_age_seconds', { channel: 'push' })).toBe(0);
    expect(sampleValue(before, 'notify_auth_code_global_window_messages', { window: '3600s' })).toBe(0);
    expect(sampleValue(before, 'notify_auth_code_global_limit', { window: '3600s' })).toBe(50);
    expect(sampleValue(before, 'notify_auth_code_global_limit', { window: '86400s' })).toBe(500);

    await httpPost(service.app, 'AuthCodeSending', 'AuthCode', { code: '482913', phone: '0944123456' });
    await httpPost(service.app, 'AuthCodeSending', 'AuthCode', { code: '482914', phone: '0944123457' });
    const after = await scrape(service);
    expect(sampleValue(after, 'notify_auth_code_global_window_messages', { window: '3600s' })).toBe(2);
    expect(sampleValue(after, 'notify_auth_code_global_window_messages', { window: '86400s' })).toBe(2);
    // Queued now and no worker runs: due, for a moment at least.
    expect(sampleValue(after, 'notify_outbox_oldest_due_age_seconds', { channel: 'sms' })).toBeGreaterThanOrEqual(0);
    expect(after.some((s) => s.name === 'notify_outbox_oldest_due_age_seconds' && s.labels.channel === 'sms')).toBe(
      true,
    );
  });

  it('has no AuthCode limit gauges when the global limit is off', async () => {
    service = await startOperatedService(variant, { AUTH_CODE_LIMIT_GLOBAL: 'off' });
    const samples = await scrape(service);
    expect(samples.filter((s) => s.name.startsWith('notify_auth_code_global'))).toEqual([]);
  });
});

describe('scrape-time gauges, their arithmetic', () => {
  const NOW = Date.parse('2026-11-25T12:00:00.000Z');
  const stats = (channel: 'push' | 'sms'): OutboxChannelStats => ({
    channel,
    counts: { queued: 1, sending: 0, sent: 0, failed: 1, dead: 0, uncertain: 0 },
    oldestPendingAt: '2026-11-25T11:50:00.000Z',
  });

  it('ages the oldest due message from when it came due, not from when it was queued', async () => {
    const registry = new Registry();
    const source: OutboxStatsSource = {
      outboxStats: async () => [stats('push'), stats('sms')],
      oldestDueAt: async (channel) => (channel === 'push' ? '2026-11-25T11:58:30.000Z' : null),
    };
    registerOutboxMetrics(registry, source, () => NOW);
    const samples = await samplesOf(registry);
    expect(sampleValue(samples, 'notify_outbox_oldest_due_age_seconds', { channel: 'push' })).toBe(90);
    expect(sampleValue(samples, 'notify_outbox_oldest_due_age_seconds', { channel: 'sms' })).toBe(0);
    expect(sampleValue(samples, 'notify_outbox_oldest_pending_age_seconds', { channel: 'push' })).toBe(600);
  });

  it('keeps the last due age when the store cannot answer, and still answers the scrape', async () => {
    const registry = new Registry();
    let up = true;
    const source: OutboxStatsSource = {
      outboxStats: async () => (up ? [stats('push')] : Promise.reject(new Error('down'))),
      oldestDueAt: async () => (up ? '2026-11-25T11:59:00.000Z' : Promise.reject(new Error('down'))),
    };
    let now = NOW;
    registerOutboxMetrics(registry, source, () => now);
    expect(sampleValue(await samplesOf(registry), 'notify_outbox_oldest_due_age_seconds', { channel: 'push' })).toBe(
      60,
    );
    up = false;
    now += 5000;
    const samples = await samplesOf(registry);
    expect(sampleValue(samples, 'notify_outbox_oldest_due_age_seconds', { channel: 'push' })).toBe(60);
    // The failed read is counted (the metrics of a scrape are collected together: the next one shows it).
    now += 5000;
    expect(sampleValue(await samplesOf(registry), 'notify_outbox_stats_errors_total')).toBeGreaterThan(0);
  });

  it('counts each global limit over its own window', async () => {
    const registry = new Registry();
    const asked: string[] = [];
    registerAuthCodeMetrics(
      registry,
      {
        countAuthCodesSince: async (since) => {
          asked.push(since);
          return since === '2026-11-25T11:00:00.000Z' ? 7 : 30;
        },
      },
      [
        { scope: 'phone', max: 3, windowSeconds: 600 },
        { scope: 'global', max: 10, windowSeconds: 3600 },
        { scope: 'global', max: 100, windowSeconds: 86400 },
      ],
      () => NOW,
    );
    const samples = await samplesOf(registry);
    expect(asked.sort()).toEqual(['2026-11-24T12:00:00.000Z', '2026-11-25T11:00:00.000Z']);
    expect(sampleValue(samples, 'notify_auth_code_global_window_messages', { window: '3600s' })).toBe(7);
    expect(sampleValue(samples, 'notify_auth_code_global_window_messages', { window: '86400s' })).toBe(30);
    expect(sampleValue(samples, 'notify_auth_code_global_limit', { window: '3600s' })).toBe(10);
    expect(samples.some((s) => s.labels.window === '600s')).toBe(false);
  });

  it('runs the readiness checks once per scrape and shows only the checks that ran', async () => {
    const registry = new Registry();
    let runs = 0;
    let report: ReadinessReport = {
      status: 'fail',
      checks: { store: { status: 'pass' }, migrations: { status: 'pass' }, worker: { status: 'fail' } },
    };
    registerReadinessMetrics(registry, async () => {
      runs += 1;
      return report;
    });
    const first = await samplesOf(registry);
    expect(runs).toBe(1);
    expect(sampleValue(first, 'notify_ready')).toBe(0);
    expect(sampleValue(first, 'notify_readiness_check', { check: 'worker' })).toBe(0);
    expect(sampleValue(first, 'notify_readiness_check', { check: 'store' })).toBe(1);

    report = { status: 'fail', checks: { shutdown: { status: 'fail' } } };
    const draining = await samplesOf(registry);
    expect(runs).toBe(2);
    expect(draining.filter((s) => s.name === 'notify_readiness_check').map((s) => s.labels.check)).toEqual([
      'shutdown',
    ]);
  });

  it('reads a probe that throws as not ready', async () => {
    const registry = new Registry();
    registerReadinessMetrics(registry, () => Promise.reject(new Error('boom')));
    expect(sampleValue(await samplesOf(registry), 'notify_ready')).toBe(0);
  });
});
