// The request metrics noted in plain numbers and handed to prom-client when
// the registry is read (src/metrics/request-metrics.ts).
import { Registry } from 'prom-client';
import { createRequestMetrics, type RequestObservation } from '../../src/metrics/request-metrics';

const OK: RequestObservation = {
  endpoint: 'PushNotificationMobile',
  operation: 'GetTokenDevice',
  binding: 'soap11',
  outcome: 'ok',
  fault: null,
  seconds: 0.0004,
};

async function sample(registry: Registry, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const metrics = await registry.getMetricsAsJSON();
  for (const metric of metrics) {
    for (const value of metric.values as Array<{
      metricName?: string;
      labels: Record<string, unknown>;
      value: number;
    }>) {
      if ((value.metricName ?? metric.name) !== name) continue;
      if (Object.entries(labels).every(([k, v]) => String(value.labels[k]) === v)) return value.value;
    }
  }
  return undefined;
}

describe('the request metrics', () => {
  it('show every request noted before a read, counted once, latencies in their buckets', async () => {
    const registry = new Registry();
    const metrics = createRequestMetrics(registry);
    for (let i = 0; i < 3; i++) metrics.observe(OK);
    metrics.observe({ ...OK, seconds: 0.2 });
    metrics.observe({ ...OK, outcome: 'client_fault', fault: 'phone_invalid' });
    const series = { endpoint: OK.endpoint, operation: OK.operation, binding: 'soap11' };
    expect(await sample(registry, 'notify_requests_total', { ...series, outcome: 'ok' })).toBe(4);
    expect(await sample(registry, 'notify_requests_total', { ...series, outcome: 'client_fault' })).toBe(1);
    expect(await sample(registry, 'notify_faults_total', { ...series, code: 'phone_invalid' })).toBe(1);
    expect(await sample(registry, 'notify_request_duration_seconds_count', series)).toBe(5);
    expect(await sample(registry, 'notify_request_duration_seconds_bucket', { ...series, le: '0.001' })).toBe(4);
    expect(await sample(registry, 'notify_request_duration_seconds_sum', series)).toBeCloseTo(0.2016, 6);
    // Read again with nothing new: nothing counted twice.
    expect(await sample(registry, 'notify_requests_total', { ...series, outcome: 'ok' })).toBe(4);
    metrics.observe(OK);
    expect(await sample(registry, 'notify_requests_total', { ...series, outcome: 'ok' })).toBe(5);
    expect(await sample(registry, 'notify_request_duration_seconds_count', series)).toBe(6);
  });

  it('hands a long run of latencies over between reads, and counts them all', async () => {
    const registry = new Registry();
    const metrics = createRequestMetrics(registry);
    for (let i = 0; i < 5000; i++) metrics.observe({ ...OK, binding: 'http_get' });
    const series = { endpoint: OK.endpoint, operation: OK.operation, binding: 'http_get' };
    expect(await sample(registry, 'notify_request_duration_seconds_count', series)).toBe(5000);
    expect(await sample(registry, 'notify_requests_total', { ...series, outcome: 'ok' })).toBe(5000);
  });
});
