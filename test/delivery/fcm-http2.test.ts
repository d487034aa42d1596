// FCM over HTTP/2 (src/delivery/http/h2-pool.ts) against a local TLS HTTP/2
// server: many sends on few sessions, the server's stream limit, GOAWAY and a
// dropped connection mid-run, and FCM's answers read as before.
import { AccessTokenSource } from '../../src/delivery/push/fcm/access-token';
import { createFcmProvider } from '../../src/delivery/push/fcm/fcm-provider';
import { H2Pool } from '../../src/delivery/http/h2-pool';
import type { PushMessage, PushProvider, SendResult } from '../../src/delivery/provider';
import { storeVariants } from '../support/stores';
import { fcmError, PROJECT, SEND_PATH, startFakeFcm, type FakeFcm } from './support/fake-fcm';
import { FakeH2Server, selfSignedCertificate, type H2Answer } from './support/fake-h2-server';
import { dataSet, pushWorker } from './support/harness';

const TLS = selfSignedCertificate();
const OK: H2Answer = { status: 200, body: { name: `projects/${PROJECT}/messages/1` } };

function message(n: number): PushMessage {
  return {
    id: `msg-${n}`,
    token: `token-${n}`,
    platform: 'android',
    title: 'Title',
    body: 'Body',
    data: { type: 'absence' },
  };
}

const notificationId = (body: string) =>
  (JSON.parse(body) as { message: { data: { notificationId: string } } }).message.data.notificationId;

describe('FCM over HTTP/2', () => {
  let server: FakeH2Server;
  let tokens: FakeFcm;
  let provider: PushProvider & { close?: () => void };

  beforeEach(async () => {
    server = await FakeH2Server.start({ tls: TLS, maxConcurrentStreams: 10 });
    // The OAuth token endpoint stays on HTTP/1.1 (plain, here).
    tokens = await startFakeFcm();
  });
  afterEach(async () => {
    await server.close();
    await tokens.server.close();
  });

  const fcm = (http2Sessions = 3, timeoutMs = 5000) =>
    createFcmProvider({
      projectId: PROJECT,
      baseUrl: server.origin,
      tokens: new AccessTokenSource({ credentials: tokens.credentials, tokenUrl: tokens.account.tokenUri, timeoutMs }),
      timeoutMs,
      http2Sessions,
      ca: TLS.cert,
    });

  it('refuses a server whose certificate nobody trusts (verification stays on)', async () => {
    const untrusted = createFcmProvider({
      projectId: PROJECT,
      baseUrl: server.origin,
      tokens: new AccessTokenSource({
        credentials: tokens.credentials,
        tokenUrl: tokens.account.tokenUri,
        timeoutMs: 2000,
      }),
      timeoutMs: 2000,
    });
    const result = await untrusted.send(message(1));
    expect(result).toMatchObject({ ok: false, code: 'connection', retryable: true });
    expect(server.received).toHaveLength(0);
  });

  it('sends many messages at once over a few sessions, never more streams on one than the server allows', async () => {
    // Answers wait until 25 requests are in, so that many streams are open together.
    const waiting: Array<() => void> = [];
    server.handle(
      () =>
        new Promise<H2Answer>((resolve) => {
          waiting.push(() => resolve(OK));
          if (waiting.length >= 25) for (const release of waiting.splice(0)) release();
        }),
    );
    provider = fcm(3);
    const results = await Promise.all(Array.from({ length: 100 }, (_, n) => provider.send(message(n))));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(server.received.map((r) => notificationId(r.body)).sort()).toEqual(
      Array.from({ length: 100 }, (_, n) => `msg-${n}`).sort(),
    );
    expect(server.received.every((r) => r.path === SEND_PATH && r.headers.authorization === 'Bearer access-1')).toBe(
      true,
    );
    expect(server.sessions.size).toBeLessThanOrEqual(3);
    expect(server.sessions.size).toBeGreaterThanOrEqual(2);
    expect(server.maxConcurrentPerSession).toBeLessThanOrEqual(10);
    // One token exchange for all of them.
    expect(tokens.tokenRequests).toHaveLength(1);
  });

  it('GOAWAY mid-run: the session drains, new sends go to a new session, nothing is lost', async () => {
    let seen = 0;
    server.handle((request) => {
      seen++;
      if (seen === 20) request.session.goaway();
      return new Promise((resolve) => setTimeout(() => resolve(OK), 5));
    });
    provider = fcm(2);
    const results = await Promise.all(Array.from({ length: 60 }, (_, n) => provider.send(message(n))));
    expect(results.filter((r) => !r.ok)).toEqual([]);
    const delivered = new Set(server.received.map((r) => notificationId(r.body)));
    expect(delivered.size).toBe(60);
    expect(server.sessions.size).toBeGreaterThanOrEqual(2);
  });

  it('a dropped connection with streams under way: they are sent again on a new session, not given up', async () => {
    let seen = 0;
    server.handle((request) => {
      seen++;
      if (seen === 15) {
        request.session.destroy();
        return 'hang';
      }
      return new Promise((resolve) => setTimeout(() => resolve(OK), 5));
    });
    provider = fcm(2);
    const results = await Promise.all(Array.from({ length: 40 }, (_, n) => provider.send(message(n))));
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(new Set(server.received.map((r) => notificationId(r.body))).size).toBe(40);
    expect(server.sessions.size).toBeGreaterThanOrEqual(2);
  });

  it('a session that keeps failing ends in a retryable connection failure, never a dead message', async () => {
    server.handle((request) => {
      request.session.destroy();
      return 'hang';
    });
    provider = fcm(1);
    const result = await provider.send(message(1));
    expect(result).toMatchObject({ ok: false, code: 'connection', retryable: true, tokenInvalid: false });
    // The first try and two more, each on a fresh session.
    expect(server.received).toHaveLength(3);
  });

  it('reads 429, 503 and UNREGISTERED as over HTTP/1.1', async () => {
    const answers: H2Answer[] = [
      fcmError(429, 'RESOURCE_EXHAUSTED', 'QUOTA_EXCEEDED', 'quota', { 'retry-after': '120' }) as H2Answer,
      { status: 503, headers: { 'retry-after': '7' }, body: 'unavailable' },
      fcmError(404, 'NOT_FOUND', 'UNREGISTERED', 'Requested entity was not found.') as H2Answer,
    ];
    server.handle(() => answers.shift() ?? OK);
    provider = fcm(1);
    const results: SendResult[] = [];
    for (let n = 0; n < 3; n++) results.push(await provider.send(message(n)));
    expect(results[0]).toMatchObject({
      ok: false,
      code: 'QUOTA_EXCEEDED',
      retryable: true,
      rateLimited: true,
      retryAfterMs: 120_000,
    });
    expect(results[1]).toMatchObject({
      ok: false,
      code: 'http_503',
      retryable: true,
      rateLimited: false,
      retryAfterMs: 7000,
    });
    expect(results[2]).toMatchObject({ ok: false, code: 'UNREGISTERED', retryable: false, tokenInvalid: true });
  });

  it('a stream that gets no answer in time is a retryable timeout, and the pool keeps working', async () => {
    let first = true;
    server.handle(() => {
      if (first) {
        first = false;
        return 'hang';
      }
      return OK;
    });
    const pool = new H2Pool({ origin: server.origin, maxSessions: 1, ca: TLS.cert });
    try {
      // Only the hanging request has a short limit: the next one must not depend on the machine's speed.
      expect(await pool.request({ path: '/x', method: 'POST', headers: {}, body: '{}', timeoutMs: 300 })).toMatchObject(
        {
          ok: false,
          code: 'timeout',
          retryable: true,
        },
      );
      expect(
        await pool.request({ path: '/x', method: 'POST', headers: {}, body: '{}', timeoutMs: 30_000 }),
      ).toMatchObject({ ok: true, status: 200 });
      expect(server.sessions.size).toBe(1);
    } finally {
      pool.close();
    }
  });

  it('the pool opens no more sessions than allowed and waits for a free stream', async () => {
    const pool = new H2Pool({ origin: server.origin, maxSessions: 1, ca: TLS.cert });
    try {
      server.handle(() => new Promise((resolve) => setTimeout(() => resolve(OK), 5)));
      const answers = await Promise.all(
        Array.from({ length: 35 }, () =>
          pool.request({ path: '/x', method: 'POST', headers: {}, body: '{}', timeoutMs: 5000 }),
        ),
      );
      expect(answers.every((a) => a.ok && 'status' in a && a.status === 200)).toBe(true);
      expect(server.sessions.size).toBe(1);
      expect(server.maxConcurrentPerSession).toBeLessThanOrEqual(10);
      expect(pool.sessionCount).toBe(1);
    } finally {
      pool.close();
    }
  });

  describe.each(storeVariants())('with the worker on $name', (variant) => {
    it('GOAWAY mid-run loses no message, and UNREGISTERED still removes the token', async () => {
      const ctx = await variant.create();
      try {
        await ctx.store.dataSet.writeDataSet(dataSet(3));
        const ids: string[] = [];
        for (let n = 0; n < 30; n++) {
          const studentId = String(1001 + (n % 3));
          ids.push(
            await ctx.store.outbox.enqueuePushNotification({
              deviceId: `dev-${studentId}`,
              studentId,
              type: 'absence',
              title: 't',
              body: 'b',
              data: {},
            }),
          );
        }
        let seen = 0;
        server.handle((request) => {
          seen++;
          if (seen === 10) request.session.goaway();
          const body = JSON.parse(request.body) as { message: { token: string } };
          if (body.message.token === 'token-1003')
            return fcmError(404, 'NOT_FOUND', 'UNREGISTERED', 'Requested entity was not found.');
          return new Promise((resolve) => setTimeout(() => resolve(OK), 5));
        });
        const worker = pushWorker(ctx.store.outbox, fcm(2));
        await worker.drain();
        const rows = await ctx.store.admin.listPushNotifications();
        const byStatus = (status: string) => rows.filter((row) => row.status === status).length;
        // Messages to 1001 and 1002 are sent; those to 1003 die once its token is gone.
        expect(byStatus('sent')).toBe(20);
        expect(byStatus('dead')).toBe(10);
        expect(rows.filter((row) => row.status === 'failed')).toEqual([]);
        expect(await ctx.store.records.getDeviceToken('dev-1003')).toBeNull();
        expect(await ctx.store.records.getDeviceToken('dev-1001')).toBe('token-1001');
      } finally {
        await ctx.cleanup();
      }
    });
  });
});
