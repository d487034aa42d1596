// A gateway that takes an SMS and then never answers (or drops the
// connection) must not lead to a second SMS: without an idempotency key the
// message is recorded `uncertain`; with one it is sent again under the same key.
import net from 'node:net';
import pino from 'pino';
import { DeliveryWorker, type SmsProvider } from '../../src/delivery';
import { createLogPushProvider } from '../../src/delivery/push/log-push-provider';
import { createWebhookProvider } from '../../src/delivery/push/webhook-provider';
import { createHttpGatewayProvider } from '../../src/delivery/sms/http-gateway-provider';
import { createTwilioProvider } from '../../src/delivery/sms/twilio-provider';
import type { DeliveryAttempt } from '../../src/delivery/observer';
import { queueAuthCode, storeVariants, type TestStore } from '../support/stores';
import { FakeHttpServer, type Answer } from './support/fake-http-server';
import { POLICY } from './support/harness';

/** A gateway that reads each request whole and then closes the connection without a word. */
async function startResettingGateway(): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server = net.createServer((socket) => {
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? 0);
      if (end >= 0 && Buffer.byteLength(text) >= end + 4 + length) {
        requests.push(text);
        socket.resetAndDestroy();
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/send`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function smsWorker(store: TestStore['store'], sms: SmsProvider, attempts: DeliveryAttempt[]): DeliveryWorker {
  const logger = pino({ level: 'silent' });
  return new DeliveryWorker({
    store: store.outbox,
    push: createLogPushProvider(logger),
    sms,
    observer: { attempted: (attempt) => attempts.push(attempt) },
    logger,
    policy: POLICY,
    authCodeMaxAgeMs: 600_000,
    smsTemplate: 'Your code is {code}',
    now: () => new Date(),
    random: () => 0,
    concurrency: 4,
    leaseSeconds: 60,
    pollMs: 50,
  });
}

const gatewayOptions = (url: string, idempotencyHeader: string | null) =>
  ({
    url,
    method: 'POST',
    format: 'form',
    headers: {},
    bodyTemplate: 'to={phone}&text={text}',
    idempotencyHeader,
    timeoutMs: 2000,
  }) as const;

describe.each(storeVariants())('SMS sent once, on $name', (variant) => {
  let ctx: TestStore;
  let gateway: FakeHttpServer;
  let attempts: DeliveryAttempt[];

  beforeEach(async () => {
    ctx = await variant.create();
    gateway = await FakeHttpServer.start();
    attempts = [];
  });
  afterEach(async () => {
    await gateway.close();
    await ctx.cleanup();
  });

  const queueCode = () =>
    queueAuthCode(ctx.store, { phone: '+963944123456', code: '482913', callerAddress: '203.0.113.9' });
  const row = async (id: string) => (await ctx.store.admin.listAuthCodeMessages()).find((r) => r.id === id)!;

  it('a gateway without an idempotency key that accepts and never answers: uncertain, the code erased, never sent again', async () => {
    gateway.answerByDefault('hang');
    const id = await queueCode();
    const worker = smsWorker(
      ctx.store,
      createHttpGatewayProvider(gatewayOptions(`${gateway.url}/send`, null)),
      attempts,
    );
    await worker.drain();
    expect(await row(id)).toMatchObject({ status: 'uncertain', code: null, attempts: 1 });
    expect((await row(id)).lastError).toMatch(/^timeout: .*it may have been accepted; not sent again/);
    expect(attempts).toMatchObject([{ channel: 'sms', provider: 'http', outcome: 'uncertain', errorCode: 'timeout' }]);
    expect(await worker.drain()).toBe(0);
    expect(gateway.requests).toHaveLength(1);
  });

  it('a connection reset after the whole request went out is uncertain too', async () => {
    const resetting = await startResettingGateway();
    try {
      const id = await queueCode();
      await smsWorker(ctx.store, createHttpGatewayProvider(gatewayOptions(resetting.url, null)), attempts).drain();
      expect(await row(id)).toMatchObject({ status: 'uncertain', code: null });
      expect(resetting.requests).toHaveLength(1);
    } finally {
      await resetting.close();
    }
  });

  it('with SMS_HTTP_IDEMPOTENCY_HEADER the key is the outbox id, the same on the retry, and the message is retried', async () => {
    gateway.script('hang');
    gateway.answerByDefault({ status: 200 });
    const id = await queueCode();
    const worker = smsWorker(
      ctx.store,
      createHttpGatewayProvider(gatewayOptions(`${gateway.url}/send`, 'idempotency-key')),
      attempts,
    );
    await worker.runOnce();
    expect(await row(id)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(attempts.map((a) => a.outcome)).toEqual(['retry']);
    // Due now rather than after the policy's delay; then sent under the same key.
    expect(await ctx.store.admin.requeueOutboxMessage('sms', id)).toBe('requeued');
    await worker.drain();
    expect(await row(id)).toMatchObject({ status: 'sent', code: null });
    expect(gateway.requests.map((r) => r.headers['idempotency-key'])).toEqual([id, id]);
  });

  it('a gateway without a key is called only once the attempt is recorded as under way', async () => {
    // The gateway answers once the row has been read as it stood when the request came.
    let answer: (value: Answer) => void = () => undefined;
    gateway.script(new Promise<Answer>((resolve) => (answer = resolve)));
    const id = await queueCode();
    let seen: Promise<unknown> = Promise.resolve(null);
    gateway.onRequest(() => {
      seen = ctx
        .query('select status, send_started_at from auth_code_messages where id = ?', [id])
        .finally(() => answer({ status: 200 }));
    });
    await smsWorker(
      ctx.store,
      createHttpGatewayProvider(gatewayOptions(`${gateway.url}/send`, null)),
      attempts,
    ).drain();
    expect(await seen).toEqual([{ status: 'sending', send_started_at: expect.any(String) as string }]);
    expect(await row(id)).toMatchObject({ status: 'sent' });
  });

  it('a 503 from a gateway without a key is a clean failure: retried, and sent once', async () => {
    gateway.script({ status: 503 });
    gateway.answerByDefault({ status: 200 });
    const id = await queueCode();
    const worker = smsWorker(
      ctx.store,
      createHttpGatewayProvider(gatewayOptions(`${gateway.url}/send`, null)),
      attempts,
    );
    await worker.runOnce();
    expect(await row(id)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(attempts).toMatchObject([{ outcome: 'retry', errorCode: 'http_503' }]);
    // Due now rather than after the policy's delay.
    expect(await ctx.store.admin.requeueOutboxMessage('sms', id)).toBe('requeued');
    await worker.drain();
    expect(await row(id)).toMatchObject({ status: 'sent', code: null });
    expect(gateway.requests).toHaveLength(2);
  });

  it('a gateway that refuses the connection before anything was sent is retried as before', async () => {
    const closed = await FakeHttpServer.start();
    const url = `${closed.url}/send`;
    await closed.close();
    const id = await queueCode();
    await smsWorker(ctx.store, createHttpGatewayProvider(gatewayOptions(url, null)), attempts).runOnce();
    expect(await row(id)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(attempts).toMatchObject([{ outcome: 'retry', errorCode: 'connection' }]);
  });
});

describe('idempotency by provider', () => {
  it('Twilio has no idempotency key: its uncertain sends are not sent again', () => {
    expect(
      createTwilioProvider({
        accountSid: 'AC1',
        authToken: 't',
        from: '+1555',
        baseUrl: 'https://api.twilio.example',
        timeoutMs: 1000,
      }).retriesUncertain,
    ).toBe(false);
    expect(createHttpGatewayProvider(gatewayOptions('https://sms.example/send', null)).retriesUncertain).toBe(false);
    expect(createHttpGatewayProvider(gatewayOptions('https://sms.example/send', 'x-request-id')).retriesUncertain).toBe(
      true,
    );
  });

  it('the push webhook sends the message id as Idempotency-Key', async () => {
    const server = await FakeHttpServer.start();
    try {
      const webhook = createWebhookProvider({ url: `${server.url}/push`, token: null, timeoutMs: 1000 });
      expect(webhook.retriesUncertain).toBe(true);
      await webhook.send({ id: 'msg-42', token: 'tok', platform: 'android', title: 't', body: 'b', data: {} });
      expect(server.requests[0].headers['idempotency-key']).toBe('msg-42');
    } finally {
      await server.close();
    }
  });
});
