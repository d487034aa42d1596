// One structured access-log line per request, with the request id (honouring
// X-Request-Id) and what the wire learnt; phone numbers masked, codes and
// tokens never written.
import { createLogger, maskPhone } from '../../src/log';
import { startOperatedService, type OperatedService } from '../support/operated-service';
import { sqliteVariant } from '../support/stores';
import { httpGet, httpPost, soap12 } from '../support/wire';

const variant = sqliteVariant();

describe('access log', () => {
  let service: OperatedService;
  beforeEach(async () => {
    service = await startOperatedService(variant);
  });
  afterEach(() => service.stop());

  const requestLines = () => service.logs.filter((line) => line.msg === 'request');

  it('writes one line per request with the id, endpoint, operation, binding, status and duration', async () => {
    const res = await soap12(service.app, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' }).set(
      'X-Request-Id',
      'lb-7f3a.42',
    );
    expect(res.headers['x-request-id']).toBe('lb-7f3a.42');
    const [line] = requestLines();
    expect(line).toMatchObject({
      level: 30,
      requestId: 'lb-7f3a.42',
      method: 'POST',
      path: '/PushNotificationMobile.asmx',
      endpoint: 'PushNotificationMobile',
      operation: 'GetTokenDevice',
      binding: 'soap12',
      status: 200,
      outcome: 'ok',
    });
    expect(typeof line?.durationMs).toBe('number');
  });

  it("makes up an id when the incoming one is missing or unfit, and echoes only a caller's own", async () => {
    const res = await httpGet(service.app, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' }).set(
      'X-Request-Id',
      'has spaces; and <markup>',
    );
    expect(res.headers['x-request-id']).toBeUndefined();
    await httpGet(service.app, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' });
    const [first, second] = requestLines();
    expect(first?.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(second?.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first?.requestId).not.toBe(second?.requestId);
  });

  it('never writes the query string, the phone number or the code', async () => {
    await httpGet(service.app, 'AuthCodeSending', 'AuthCode', { code: '482913', phone: '0944123456' });
    await httpPost(service.app, 'AuthCodeSending', 'AuthCode', { code: '482913', phone: '0944123456' });
    const text = JSON.stringify(service.logs);
    expect(text).not.toContain('482913');
    expect(text).not.toContain('944123456');
    expect(requestLines().map((l) => l.path)).toEqual([
      '/AuthCodeSending.asmx/AuthCode',
      '/AuthCodeSending.asmx/AuthCode',
    ]);
  });

  it('logs a failure of ours at warn, with the same request id as the operation error', async () => {
    await service.testStore.store.lifecycle.close();
    await httpGet(service.app, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' }).set(
      'X-Request-Id',
      'req-1',
    );
    const failed = service.logs.find((l) => l.msg === 'operation failed');
    expect(failed).toMatchObject({ requestId: 'req-1', operation: 'GetTokenDevice' });
    expect(requestLines()[0]).toMatchObject({
      level: 40,
      requestId: 'req-1',
      outcome: 'server_fault',
      fault: 'store_unavailable',
      status: 500,
    });
  });
});

describe('redaction', () => {
  function logged(object: Record<string, unknown>): Record<string, unknown> {
    const lines: string[] = [];
    createLogger('info', { destination: { write: (line: string) => void lines.push(line) } }).info(object, 'x');
    return JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
  }

  it('masks phone numbers, keeping the last three digits', () => {
    expect(logged({ phone: '+963944123456' }).phone).toBe('+*********456');
    expect(logged({ message: { to: '0944 123 456' } }).message).toEqual({ to: '**** *** 456' });
  });

  it('hides auth codes and tokens but keeps error codes', () => {
    const line = logged({
      code: '482913',
      token: 'fcm:secret',
      req: { headers: { authorization: 'Bearer x' } },
      err: { code: 'ECONNREFUSED' },
      sms: { code: 1234 },
    });
    expect(line).toMatchObject({
      code: '[redacted]',
      token: '[redacted]',
      req: { headers: { authorization: '[redacted]' } },
      err: { code: 'ECONNREFUSED' },
      sms: { code: '[redacted]' },
    });
  });

  it('maskPhone leaves short values alone and copes with non-strings', () => {
    expect(maskPhone('12')).toBe('12');
    expect(maskPhone(963944123456)).toBe('*********456');
    expect(maskPhone(undefined)).toBe('');
    // Form-encoded: the escapes stay, their hex digits are not counted.
    expect(maskPhone('%2B963%20944123456')).toBe('%2B***%20******456');
  });
});
