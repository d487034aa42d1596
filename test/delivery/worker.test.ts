import { randomUUID } from 'node:crypto';
import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { createAdminApi } from '../../src/admin';
import { completeOne, queueAuthCode, storeVariants } from '../support/stores';
import { fcmError, SEND_PATH } from './support/fake-fcm';
import { queuePush, startHarness, type Harness } from './support/harness';

const T0 = '2030-01-01T00:00:00.000Z';
const later = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

describe.each(storeVariants())('delivery worker on $name', (variant) => {
  let h: Harness;

  beforeEach(async () => {
    h = await startHarness(variant);
  });
  afterEach(() => h.close());

  const pushRow = async (id: string) => (await h.ctx.store.admin.listPushNotifications()).find((row) => row.id === id)!;
  const smsRow = async (id: string) => (await h.ctx.store.admin.listAuthCodeMessages()).find((row) => row.id === id)!;
  const queueCode = (code = '482913', phone = '+963944123456') =>
    queueAuthCode(h.ctx.store, { phone, code, callerAddress: '203.0.113.9' });

  describe('push through FCM', () => {
    it('sends exactly the expected request once and records the message as sent', async () => {
      const id = await queuePush(h);
      expect(await h.worker.runOnce()).toBe(1);

      expect(h.fcm.server.requests).toHaveLength(1);
      const [request] = h.fcm.server.requests;
      expect(request.method).toBe('POST');
      expect(request.url).toBe(SEND_PATH);
      expect(request.headers.authorization).toBe('Bearer access-1');
      expect(JSON.parse(request.body)).toEqual({
        message: {
          token: 'token-1001',
          notification: { title: 'غياب | Absence', body: 'تم تسجيل غياب\nAn absence was recorded.' },
          data: { type: 'absence', studentId: '1001', school: 'https://school.example', notificationId: id },
        },
      });
      // google-auth-library's request, made at the key file's token_uri (the fake) and addressed to Google's endpoint.
      expect(h.fcm.tokenRequests).toEqual([
        {
          iss: 'notify@test.iam.example',
          scope: 'https://www.googleapis.com/auth/firebase.messaging',
          aud: 'https://oauth2.googleapis.com/token',
          iat: expect.any(Number),
          exp: expect.any(Number),
          grantType: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        },
      ]);
      expect(h.fcm.tokenRequests[0].exp - h.fcm.tokenRequests[0].iat).toBe(3600);
      expect(await pushRow(id)).toMatchObject({
        status: 'sent',
        attempts: 1,
        sentAt: T0,
        lastError: null,
        lockedUntil: null,
      });
      expect(h.attempts).toEqual([
        { channel: 'push', provider: 'fcm', outcome: 'sent', errorCode: null, durationMs: expect.any(Number) },
      ]);
      expect(await h.worker.runOnce()).toBe(0);
      expect(h.fcm.server.requests).toHaveLength(1);
    });

    it('429 QUOTA_EXCEEDED with Retry-After: waits at least that long, then sends', async () => {
      const id = await queuePush(h);
      h.fcm.server.script(
        fcmError(429, 'RESOURCE_EXHAUSTED', 'QUOTA_EXCEEDED', 'Quota exceeded', { 'retry-after': '120' }),
      );
      await h.worker.runOnce();
      expect(await pushRow(id)).toMatchObject({
        status: 'failed',
        attempts: 1,
        nextAttemptAt: later(120),
        lastError: 'QUOTA_EXCEEDED: Quota exceeded (HTTP 429)',
      });
      expect(h.attempts[0]).toMatchObject({ outcome: 'retry', errorCode: 'QUOTA_EXCEEDED' });

      h.clock.set(later(119));
      expect(await h.worker.runOnce()).toBe(0);
      h.clock.set(later(120));
      expect(await h.worker.runOnce()).toBe(1);
      expect(await pushRow(id)).toMatchObject({ status: 'sent', attempts: 2, sentAt: later(120) });
      expect(h.fcm.server.requests).toHaveLength(2);
    });

    it('429 without Retry-After: at least a minute, plus jitter', async () => {
      const id = await queuePush(h);
      h.fcm.server.script({ status: 429, body: 'slow down' });
      h.randoms.push(0.5);
      await h.worker.runOnce();
      expect(await pushRow(id)).toMatchObject({
        status: 'failed',
        nextAttemptAt: later(90),
        lastError: 'http_429: HTTP 429: slow down',
      });
    });

    it('503 UNAVAILABLE: exponential backoff from the base delay, then sent', async () => {
      const id = await queuePush(h);
      h.fcm.server.script(fcmError(503, 'UNAVAILABLE', 'UNAVAILABLE'), fcmError(503, 'UNAVAILABLE', 'UNAVAILABLE'));
      await h.worker.runOnce();
      expect(await pushRow(id)).toMatchObject({ status: 'failed', attempts: 1, nextAttemptAt: later(10) });
      h.clock.set(later(10));
      await h.worker.runOnce();
      expect(await pushRow(id)).toMatchObject({ status: 'failed', attempts: 2, nextAttemptAt: later(30) });
      h.clock.set(later(30));
      await h.worker.runOnce();
      expect(await pushRow(id)).toMatchObject({ status: 'sent', attempts: 3, sentAt: later(30) });
      expect(h.attempts.map((a) => [a.outcome, a.errorCode])).toEqual([
        ['retry', 'UNAVAILABLE'],
        ['retry', 'UNAVAILABLE'],
        ['sent', null],
      ]);
    });

    it('gives up after the maximum number of attempts', async () => {
      const id = await queuePush(h);
      h.fcm.server.answerByDefault(fcmError(500, 'INTERNAL', 'INTERNAL', 'Internal error'));
      for (let attempt = 1; attempt <= 5; attempt++) {
        h.clock.set(later(attempt * 3600));
        expect(await h.worker.runOnce()).toBe(1);
      }
      expect(await pushRow(id)).toMatchObject({
        status: 'dead',
        attempts: 5,
        lastError: 'gave up after 5 attempts; last: INTERNAL: Internal error (HTTP 500)',
      });
      h.clock.set(later(10 * 3600));
      expect(await h.worker.runOnce()).toBe(0);
      expect(h.fcm.server.requests).toHaveLength(5);
    });

    it('UNREGISTERED: dead at once, and the device loses its token; later messages to it die without a request', async () => {
      const first = await queuePush(h);
      h.fcm.server.script(fcmError(404, 'NOT_FOUND', 'UNREGISTERED', 'Requested entity was not found.'));
      await h.worker.runOnce();
      expect(await pushRow(first)).toMatchObject({
        status: 'dead',
        attempts: 1,
        lastError: 'UNREGISTERED: Requested entity was not found. (HTTP 404)',
      });
      expect(await h.ctx.store.records.getDeviceToken('dev-1001')).toBeNull();
      expect(h.logs.some((line) => line.includes('push token removed'))).toBe(true);

      const second = await queuePush(h);
      await h.worker.runOnce();
      expect(await pushRow(second)).toMatchObject({
        status: 'dead',
        lastError: 'no_token: The device has no push token.',
      });
      expect(h.fcm.server.requests).toHaveLength(1);
    });

    it.each([
      [
        'an invalid token',
        fcmError(
          400,
          'INVALID_ARGUMENT',
          'INVALID_ARGUMENT',
          'The registration token is not a valid FCM registration token',
        ),
        null,
      ],
      [
        'a bad payload',
        fcmError(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', 'Invalid JSON payload received.'),
        'token-1001',
      ],
      [
        'SENDER_ID_MISMATCH',
        fcmError(403, 'PERMISSION_DENIED', 'SENDER_ID_MISMATCH', 'SenderId mismatch'),
        'token-1001',
      ],
      ['a plain 400', { status: 400, body: 'bad request' }, 'token-1001'],
    ])(
      '%s fails at once (dead, one request); the token is removed only when it is the problem',
      async (_name, answer, tokenAfter) => {
        const id = await queuePush(h);
        h.fcm.server.script(answer);
        await h.worker.runOnce();
        expect(await pushRow(id)).toMatchObject({ status: 'dead', attempts: 1 });
        expect(await h.ctx.store.records.getDeviceToken('dev-1001')).toBe(tokenAfter);
        h.clock.set(later(86400));
        expect(await h.worker.runOnce()).toBe(0);
        expect(h.fcm.server.requests).toHaveLength(1);
      },
    );

    it('a provider that does not answer in time: retried', async () => {
      await h.close();
      h = await startHarness(variant, { timeoutMs: 150 });
      const id = await queuePush(h);
      h.fcm.server.script('hang');
      await h.worker.runOnce();
      expect(await pushRow(id)).toMatchObject({ status: 'failed', attempts: 1, nextAttemptAt: later(10) });
      expect((await pushRow(id)).lastError).toMatch(/^timeout: No answer from 127\.0\.0\.1:\d+ within 150 ms\.$/);
      expect(h.attempts[0]).toMatchObject({ outcome: 'retry', errorCode: 'timeout' });
    });

    it('a provider that cannot be reached: retried', async () => {
      await queuePush(h, '1002');
      await h.worker.runOnce(); // the access token is now cached
      const id = await queuePush(h);
      await h.fcm.server.close();
      await h.worker.runOnce();
      expect(await pushRow(id)).toMatchObject({ status: 'failed', attempts: 1 });
      expect((await pushRow(id)).lastError).toMatch(
        /^connection: Could not reach 127\.0\.0\.1:\d+: (ECONNREFUSED|ECONNRESET|UND_ERR_SOCKET)\.$/,
      );
    });

    it('a message whose earlier sends never finished (worker died each time) is given up, not sent again', async () => {
      const id = await queuePush(h);
      await h.ctx.query(
        "update push_notifications set status = 'sending', attempts = 5, next_attempt_at = ?, locked_until = ? where id = ?",
        [T0, T0, id],
      );
      await h.worker.runOnce();
      expect(await pushRow(id)).toMatchObject({
        status: 'dead',
        attempts: 6,
        lastError:
          'attempts_exhausted: gave up after 5 attempts, the last of which never finished (its worker stopped mid-send)',
      });
      expect(h.fcm.server.requests).toHaveLength(0);
    });

    it('a worker whose lease ran out mid-send does not overwrite the result of the claim that replaced it', async () => {
      const id = await queuePush(h);
      let answer: (value: { status: number }) => void = () => undefined;
      h.fcm.server.script(new Promise((resolve) => (answer = resolve)));
      const arrived = new Promise<void>((resolve) => h.fcm.server.onRequest(() => resolve()));
      const slow = h.worker.runOnce();
      await arrived;

      h.clock.set(later(61));
      const [takeover] = await h.ctx.store.outbox.claimPushNotifications(1, 60);
      expect(takeover).toMatchObject({ id, attempts: 2 });
      // The first worker's answer comes while the second still holds its claim.
      answer({ status: 503 });
      await slow;
      expect(await pushRow(id)).toMatchObject({ status: 'sending', attempts: 2, lastError: null });
      expect(h.logs.some((line) => line.includes('delivery result dropped: the lease ran out'))).toBe(true);
      expect(
        await completeOne(h.ctx.store, 'push', id, takeover.claimToken, {
          status: 'sent',
          providerMessageId: 'second',
        }),
      ).toBe(true);
      expect(await pushRow(id)).toMatchObject({ status: 'sent', attempts: 2 });
    });

    it('reuses the access token, renews it before it expires, and mints a new one after a 401', async () => {
      await queuePush(h, '1001');
      await queuePush(h, '1002');
      await h.worker.runOnce();
      expect(h.fcm.tokenRequests).toHaveLength(1);

      h.clock.set(later(56 * 60));
      await queuePush(h, '1003');
      await h.worker.runOnce();
      expect(h.fcm.tokenRequests).toHaveLength(2);
      expect(h.fcm.server.requests[2].headers.authorization).toBe('Bearer access-2');

      const id = await queuePush(h, '1001');
      h.fcm.server.script(fcmError(401, 'UNAUTHENTICATED', null, 'Request had invalid authentication credentials.'));
      await h.worker.runOnce();
      expect(await pushRow(id)).toMatchObject({
        status: 'failed',
        lastError: 'UNAUTHENTICATED: Request had invalid authentication credentials. (HTTP 401)',
      });
      h.clock.set(later(57 * 60));
      await h.worker.runOnce();
      expect(await pushRow(id)).toMatchObject({ status: 'sent' });
      expect(h.fcm.server.requests.at(-1)!.headers.authorization).toBe('Bearer access-3');
    });

    it('sends a payload within 4,096 bytes even when the request, token included, is larger', async () => {
      const payloadBesidesBody = JSON.stringify({
        notification: { title: 't', body: '' },
        data: { notificationId: randomUUID() },
      }).length;
      const id = await h.ctx.store.outbox.enqueuePushNotification({
        deviceId: 'dev-1001',
        studentId: '1001',
        type: 'note',
        title: 't',
        body: 'x'.repeat(4096 - payloadBesidesBody),
        data: {},
      });
      await h.worker.runOnce();
      expect(await pushRow(id)).toMatchObject({ status: 'sent' });
      const [request] = h.fcm.server.requests;
      expect(Buffer.byteLength(request.body)).toBeGreaterThan(4096);
      const { message } = JSON.parse(request.body) as { message: { token: string } };
      const { token: _token, ...payload } = message;
      expect(Buffer.byteLength(JSON.stringify(payload))).toBe(4096);
    });

    it('refuses a payload over 4,096 bytes before sending', async () => {
      const id = await h.ctx.store.outbox.enqueuePushNotification({
        deviceId: 'dev-1001',
        studentId: '1001',
        type: 'note',
        title: 't',
        body: 'x'.repeat(4100),
        data: {},
      });
      await h.worker.runOnce();
      expect(await pushRow(id)).toMatchObject({
        status: 'dead',
        lastError: expect.stringMatching(/^payload_too_large: The message is \d+ bytes; FCM accepts at most 4096\.$/),
      });
      expect(h.fcm.server.requests).toHaveLength(0);
    });
  });

  describe('login codes through the HTTP gateway', () => {
    it('sends the templated text once, then erases the code; the code is never logged', async () => {
      const id = await queueCode();
      await h.worker.runOnce();
      expect(h.gateway.requests).toHaveLength(1);
      const [request] = h.gateway.requests;
      expect(request.url).toBe('/send');
      expect(request.headers['x-api-key']).toBe('secret-key');
      expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({
        to: '+963944123456',
        text: 'Your code is 482913',
      });
      expect(await smsRow(id)).toMatchObject({ status: 'sent', attempts: 1, code: null, sentAt: T0 });
      expect(h.attempts).toEqual([
        { channel: 'sms', provider: 'http', outcome: 'sent', errorCode: null, durationMs: expect.any(Number) },
      ]);
      expect(h.logs.join('\n')).not.toContain('482913');
    });

    it('retries a 503, keeps the code while it may still be sent, erases it when dead; an echoed code never reaches the store or log', async () => {
      const id = await queueCode();
      h.gateway.script({ status: 503, body: 'busy' }, { status: 400, body: 'rejected: Your code is 482913' });
      await h.worker.runOnce();
      expect(await smsRow(id)).toMatchObject({
        status: 'failed',
        code: '482913',
        nextAttemptAt: later(10),
        lastError: 'http_503: HTTP 503: busy',
      });
      h.clock.set(later(10));
      await h.worker.runOnce();
      expect(await smsRow(id)).toMatchObject({
        status: 'dead',
        attempts: 2,
        code: null,
        lastError: 'http_400: HTTP 400: rejected: Your code is [code]',
      });
      expect(h.logs.join('\n')).not.toContain('482913');
      const raw = await h.ctx.query<Record<string, unknown>>('select * from auth_code_messages');
      expect(JSON.stringify(raw)).not.toContain('482913');
    });

    it('a gateway echoing the request: no form of the phone number reaches the store, the log or the admin API', async () => {
      // Every way a gateway may write the number back: form-encoded, E.164, digits only, national, spaced.
      h.gateway.route((req) =>
        req.url === '/send'
          ? {
              status: 400,
              body: `bad request ${req.body} | to +963944123456 / 963944123456 / 0944123456 / +963 944 123 456`,
            }
          : undefined,
      );
      const id = await queueCode();
      await h.worker.runOnce();
      const row = await smsRow(id);
      expect(row).toMatchObject({ status: 'dead', code: null });
      expect(row.lastError).toBe(
        'http_400: HTTP 400: bad request to=%2B*********456&text=Your%20code%20is%20[code] | to +*********456 / *********456 / *******456 / +*** *** *** 456',
      );

      const admin = express().use(
        createAdminApi({
          store: h.ctx.store.admin,
          token: 'admin-token-0123456789',
          logger: pino({ level: 'silent' }),
        }),
      );
      const listed = await request(admin)
        .get('/admin/api/v1/outbox/sms')
        .set('Authorization', 'Bearer admin-token-0123456789');
      expect(listed.status).toBe(200);
      expect(listed.text).toContain('to=%2B*********456');
      // The phone column keeps the number (it is where the message goes); the error text must not.
      const stored = JSON.stringify(
        await h.ctx.query<Record<string, unknown>>('select last_error from auth_code_messages'),
      );
      const dead = h.logs.filter((line) => line.includes('message is dead'));
      expect(dead).toHaveLength(1);
      for (const text of [listed.text, stored, h.logs.join('\n')]) {
        for (const form of ['944123456', '944 123 456', '482913']) expect(text).not.toContain(form);
      }
    });

    it('a code not sent within its validity is dead without a request', async () => {
      const id = await queueCode();
      h.clock.set(later(600));
      await h.worker.runOnce();
      expect(await smsRow(id)).toMatchObject({
        status: 'dead',
        code: null,
        lastError: 'expired: The code was not sent within 600 s of the request.',
      });
      expect(h.gateway.requests).toHaveLength(0);
    });

    it('a retry that would come after the code expires ends it instead', async () => {
      const id = await queueCode();
      h.clock.set(later(595));
      h.gateway.script({ status: 503 });
      await h.worker.runOnce();
      expect(await smsRow(id)).toMatchObject({
        status: 'dead',
        code: null,
        lastError: 'http_503: HTTP 503; a retry would come after the code expires',
      });
    });

    it('claims login codes before push notifications', async () => {
      await h.close();
      h = await startHarness(variant, { concurrency: 2 });
      await queuePush(h, '1001');
      await queuePush(h, '1002');
      h.clock.set(later(1));
      await queueCode();
      await h.worker.runOnce();
      expect(h.gateway.requests).toHaveLength(1);
      expect(h.fcm.server.requests).toHaveLength(1);
    });
  });
});
