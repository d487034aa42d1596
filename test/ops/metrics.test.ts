// /metrics in the Prometheus format: counters move with calls, faults are
// counted by code, the outbox and deliveries are visible, and no label ever
// carries a phone number, a token or a student id.
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { serveMetrics } from '../../src/server';
import { parseMetrics, sampleValue, type Sample } from '../support/prometheus';
import { startOperatedService, type OperatedService } from '../support/operated-service';
import { storeVariants, sqliteVariant } from '../support/stores';
import { httpGet, httpPost, soap11, soap12 } from '../support/wire';

async function scrape(service: OperatedService): Promise<Sample[]> {
  const res = await request(service.app).get('/metrics');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseMetrics(res.text);
}

describe.each(storeVariants())('metrics on $name', (variant) => {
  let service: OperatedService;
  beforeEach(async () => {
    service = await startOperatedService(variant);
  });
  afterEach(() => service.stop());

  it('counts requests by endpoint, operation, binding and outcome, with their latency', async () => {
    const before = await scrape(service);
    const labels = { endpoint: 'PushNotificationMobile', operation: 'GetTokenDevice', outcome: 'ok' };
    expect(sampleValue(before, 'notify_requests_total', { ...labels, binding: 'soap11' })).toBe(0);

    await soap11(service.app, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' });
    await soap11(service.app, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1002' });
    await soap12(service.app, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' });
    await httpGet(service.app, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' });
    await httpPost(service.app, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' });
    const after = await scrape(service);

    expect(sampleValue(after, 'notify_requests_total', { ...labels, binding: 'soap11' })).toBe(2);
    expect(sampleValue(after, 'notify_requests_total', { ...labels, binding: 'soap12' })).toBe(1);
    expect(sampleValue(after, 'notify_requests_total', { ...labels, binding: 'http_get' })).toBe(1);
    expect(sampleValue(after, 'notify_requests_total', { ...labels, binding: 'http_post' })).toBe(1);
    const count = { endpoint: 'PushNotificationMobile', operation: 'GetTokenDevice', binding: 'soap11' };
    expect(sampleValue(after, 'notify_request_duration_seconds_count', count)).toBe(2);
    expect(sampleValue(after, 'notify_request_duration_seconds_bucket', { ...count, le: '+Inf' })).toBe(2);
  });

  it('counts faults by code: the operation error, a wire refusal', async () => {
    await httpPost(service.app, 'AuthCodeSending', 'AuthCode', { code: '12', phone: '0944123456' });
    await soap11(service.app, 'NotificationNotes', 'SendNotificationType', {
      id: 'nobody',
      baseUrlSchool: 'https://school-a.example',
      TypeNotfication: 'absence',
    });
    await httpGet(service.app, 'AuthCodeSending', 'AuthCode', { code: '1234' });
    const samples = await scrape(service);
    expect(
      sampleValue(samples, 'notify_faults_total', {
        operation: 'AuthCode',
        binding: 'http_post',
        code: 'code_invalid',
      }),
    ).toBe(1);
    expect(
      sampleValue(samples, 'notify_faults_total', {
        operation: 'SendNotificationType',
        binding: 'soap11',
        code: 'student_unknown',
      }),
    ).toBe(1);
    expect(
      sampleValue(samples, 'notify_requests_total', {
        operation: 'AuthCode',
        binding: 'http_get',
        outcome: 'client_fault',
      }),
    ).toBe(1);
    expect(
      sampleValue(samples, 'notify_faults_total', {
        endpoint: 'AuthCodeSending',
        binding: 'http_get',
        code: 'http_500',
      }),
    ).toBe(1);
  });

  it('counts a store failure as a server fault', async () => {
    await service.testStore.store.lifecycle.close();
    await httpGet(service.app, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' });
    const res = await request(service.app).get('/metrics');
    const samples = parseMetrics(res.text);
    expect(
      sampleValue(samples, 'notify_requests_total', { operation: 'GetTokenDevice', outcome: 'server_fault' }),
    ).toBe(1);
    expect(
      sampleValue(samples, 'notify_faults_total', { operation: 'GetTokenDevice', code: 'store_unavailable' }),
    ).toBe(1);
    // The outbox gauges could not be read: counted, and the scrape still answers.
    expect(sampleValue(samples, 'notify_outbox_stats_errors_total')).toBeGreaterThan(0);
  });

  it('shows the outbox depth and the age of its oldest message', async () => {
    await httpPost(service.app, 'NotificationNotes', 'SendNotificationType', {
      id: '1001',
      baseUrlSchool: 'https://school-a.example',
      TypeNotfication: 'absence',
    });
    await httpPost(service.app, 'AuthCodeSending', 'AuthCode', { code: '482913', phone: '0944123456' });
    const samples = await scrape(service);
    expect(sampleValue(samples, 'notify_outbox_pending', { channel: 'push' })).toBe(1);
    expect(sampleValue(samples, 'notify_outbox_messages', { channel: 'sms', status: 'queued' })).toBe(1);
    expect(sampleValue(samples, 'notify_outbox_messages', { channel: 'push', status: 'dead' })).toBe(0);
    expect(
      sampleValue(samples, 'notify_outbox_oldest_pending_age_seconds', { channel: 'push' }),
    ).toBeGreaterThanOrEqual(0);
  });

  it('counts deliveries the worker reports through the observer', async () => {
    service.metrics.delivery.attempted({
      channel: 'push',
      provider: 'fcm',
      outcome: 'sent',
      errorCode: null,
      durationMs: 120,
    });
    service.metrics.delivery.attempted({
      channel: 'push',
      provider: 'fcm',
      outcome: 'retry',
      errorCode: 'UNAVAILABLE',
      durationMs: 80,
    });
    service.metrics.delivery.attempted({
      channel: 'sms',
      provider: 'http',
      outcome: 'dead',
      errorCode: 'http 400: phone +963944123456 rejected',
      durationMs: 30,
    });
    const samples = await scrape(service);
    expect(sampleValue(samples, 'notify_deliveries_total', { channel: 'push', provider: 'fcm', outcome: 'sent' })).toBe(
      1,
    );
    expect(
      sampleValue(samples, 'notify_delivery_errors_total', { channel: 'push', provider: 'fcm', code: 'UNAVAILABLE' }),
    ).toBe(1);
    // An error "code" that is really a sentence (with a phone number in it) is folded away.
    expect(
      sampleValue(samples, 'notify_delivery_errors_total', { channel: 'sms', provider: 'http', code: 'other' }),
    ).toBe(1);
    expect(sampleValue(samples, 'notify_delivery_duration_seconds_count', { channel: 'push', provider: 'fcm' })).toBe(
      2,
    );
  });

  it('never labels a series with a phone number, a token or a student id', async () => {
    await httpPost(service.app, 'AuthCodeSending', 'AuthCode', { code: '482913', phone: '0944123456' });
    await httpPost(service.app, 'AuthCodeSending', 'AuthCode', { code: '482913', phone: 'not-a-phone-0944' });
    await httpGet(service.app, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' });
    await httpGet(service.app, 'GetStudentsAbsence', 'GetStudentsAbcenceByID', { STDid: '1001' });
    await httpGet(service.app, 'NoSuch', 'Thing', { x: '1001' });
    const values = (await scrape(service)).flatMap((s) => Object.values(s.labels));
    for (const secret of [
      '0944123456',
      '+963944123456',
      '482913',
      'fcm:AAAA-1001',
      'dev-1001',
      '1001',
      'not-a-phone-0944',
    ]) {
      expect(values.filter((v) => v.includes(secret))).toEqual([]);
    }
  });

  it('includes Node process metrics', async () => {
    const names = new Set((await scrape(service)).map((s) => s.name));
    expect(names).toContain('process_cpu_user_seconds_total');
    expect(names).toContain('nodejs_eventloop_lag_seconds');
  });
});

describe('metrics on their own port', () => {
  const variant = sqliteVariant();

  it('leaves /metrics off the main port and serves it on METRICS_PORT', async () => {
    const service = await startOperatedService(variant, { METRICS_PORT: '0' });
    const server = await serveMetrics(service.metrics, 0, '127.0.0.1');
    try {
      expect((await request(service.app).get('/metrics')).status).toBe(404);
      await httpGet(service.app, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' });
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      const samples = parseMetrics(await res.text());
      expect(sampleValue(samples, 'notify_requests_total', { operation: 'GetTokenDevice', binding: 'http_get' })).toBe(
        1,
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await service.stop();
    }
  });
});
