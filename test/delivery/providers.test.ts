import { createWebhookProvider } from '../../src/delivery/push/webhook-provider';
import { createHttpGatewayProvider, type HttpGatewayOptions } from '../../src/delivery/sms/http-gateway-provider';
import { createTwilioProvider } from '../../src/delivery/sms/twilio-provider';
import { parseRetryAfter } from '../../src/delivery/http/retry-after';
import type { PushMessage, SmsMessage } from '../../src/delivery';
import { FakeHttpServer } from './support/fake-http-server';

const SMS: SmsMessage = { id: 'm-1', phone: '+963944123456', text: 'رمزك 4829 & "more"' };
const PUSH: PushMessage = {
  id: 'n-1',
  token: 'tok-1',
  platform: 'ios',
  title: 'T',
  body: 'B',
  data: { type: 'absence', studentId: '1001', school: 'https://s.example' },
};

describe('providers against a fake server', () => {
  let server: FakeHttpServer;
  beforeEach(async () => {
    server = await FakeHttpServer.start();
  });
  afterEach(() => server.close());

  describe('http SMS gateway', () => {
    const gateway = (options: Partial<HttpGatewayOptions>) =>
      createHttpGatewayProvider({
        url: `${server.url}/sms`,
        method: 'POST',
        format: 'form',
        headers: {},
        bodyTemplate: 'to={phone}&text={text}',
        timeoutMs: 2000,
        ...options,
      });

    it('POSTs a form with the values encoded', async () => {
      expect(await gateway({ headers: { Authorization: 'Key abc' } }).send(SMS)).toEqual({
        ok: true,
        providerMessageId: null,
      });
      const [request] = server.requests;
      expect(request.method).toBe('POST');
      expect(request.headers.authorization).toBe('Key abc');
      expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({
        to: '+963944123456',
        text: 'رمزك 4829 & "more"',
      });
    });

    it('POSTs JSON with the values escaped inside the template’s strings', async () => {
      await gateway({
        format: 'json',
        bodyTemplate: '{"msisdn":"{phone_digits}","message":"{text}","ref":"{id}"}',
      }).send(SMS);
      const [request] = server.requests;
      expect(request.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(request.body)).toEqual({ msisdn: '963944123456', message: 'رمزك 4829 & "more"', ref: 'm-1' });
    });

    it('GETs with the template as the query string', async () => {
      await gateway({ method: 'GET', bodyTemplate: 'user=school&to={phone}&msg={text}' }).send(SMS);
      const [request] = server.requests;
      expect(request.method).toBe('GET');
      expect(request.body).toBe('');
      const query = new URL(request.url, 'http://x').searchParams;
      expect(Object.fromEntries(query)).toEqual({ user: 'school', to: '+963944123456', msg: 'رمزك 4829 & "more"' });
    });

    it.each([
      [429, { 'retry-after': '30' }, { code: 'http_429', retryable: true, rateLimited: true, retryAfterMs: 30_000 }],
      [500, {}, { code: 'http_500', retryable: true, rateLimited: false }],
      [408, {}, { code: 'http_408', retryable: true }],
      [401, {}, { code: 'http_401', retryable: false }],
      [404, {}, { code: 'http_404', retryable: false, tokenInvalid: false }],
    ])('HTTP %d is classified', async (status, headers, expected) => {
      server.script({ status, headers, body: 'no' });
      expect(await gateway({}).send(SMS)).toMatchObject({ ok: false, ...expected });
    });
  });

  describe('twilio', () => {
    const twilio = (from = '+15005550006') =>
      createTwilioProvider({ accountSid: 'AC123', authToken: 'secret', from, baseUrl: server.url, timeoutMs: 2000 });

    it('posts to the Messages API with basic auth and keeps the SID', async () => {
      server.script({ status: 201, body: { sid: 'SM42', status: 'queued' } });
      expect(await twilio().send(SMS)).toEqual({ ok: true, providerMessageId: 'SM42' });
      const [request] = server.requests;
      expect(request.url).toBe('/2010-04-01/Accounts/AC123/Messages.json');
      expect(request.headers.authorization).toBe(`Basic ${Buffer.from('AC123:secret').toString('base64')}`);
      expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({
        To: '+963944123456',
        Body: SMS.text,
        From: '+15005550006',
      });
    });

    it('sends through a Messaging Service when TWILIO_FROM is one', async () => {
      await twilio('MG0123456789abcdef0123456789abcdef').send(SMS);
      expect(new URLSearchParams(server.requests[0].body).get('MessagingServiceSid')).toBe(
        'MG0123456789abcdef0123456789abcdef',
      );
    });

    it('names Twilio’s error code; an invalid number fails at once, 429 is retried', async () => {
      server.script(
        { status: 400, body: { code: 21211, message: "The 'To' number is not a valid phone number.", status: 400 } },
        { status: 429, body: { code: 20429, message: 'Too Many Requests', status: 429 } },
      );
      expect(await twilio().send(SMS)).toMatchObject({
        ok: false,
        code: 'twilio_21211',
        retryable: false,
        message: "HTTP 400: The 'To' number is not a valid phone number.",
      });
      expect(await twilio().send(SMS)).toMatchObject({
        ok: false,
        code: 'twilio_20429',
        retryable: true,
        rateLimited: true,
      });
    });
  });

  describe('push webhook', () => {
    it('POSTs our document, gorush-compatible, with the bearer token', async () => {
      const provider = createWebhookProvider({ url: `${server.url}/push`, token: 'hook-secret', timeoutMs: 2000 });
      expect(await provider.send(PUSH)).toEqual({ ok: true, providerMessageId: null });
      const [request] = server.requests;
      expect(request.headers.authorization).toBe('Bearer hook-secret');
      const data = { type: 'absence', studentId: '1001', school: 'https://s.example', notificationId: 'n-1' };
      expect(JSON.parse(request.body)).toEqual({
        id: 'n-1',
        token: 'tok-1',
        platform: 'ios',
        title: 'T',
        body: 'B',
        data,
        notifications: [{ tokens: ['tok-1'], platform: 1, title: 'T', message: 'B', data }],
      });
    });

    it('410 means the token is dead; 404 is only a failure', async () => {
      const provider = createWebhookProvider({ url: `${server.url}/push`, token: null, timeoutMs: 2000 });
      server.script({ status: 410 }, { status: 404 });
      expect(await provider.send(PUSH)).toMatchObject({
        ok: false,
        code: 'http_410',
        retryable: false,
        tokenInvalid: true,
      });
      expect(await provider.send(PUSH)).toMatchObject({
        ok: false,
        code: 'http_404',
        retryable: false,
        tokenInvalid: false,
      });
      expect(server.requests[0].headers.authorization).toBeUndefined();
    });
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates, and caps absurd values at a day', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Tue, 01 Jan 2030 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Mon, 31 Dec 2029 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('9999999', now)).toBe(86_400_000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});
