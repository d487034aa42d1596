// A worker wired to a test store, a fake FCM and a fake SMS gateway, with a
// clock and a random source the test controls and a log it can read.
import type { DeliveryLimits } from '../../../src/delivery/concurrency';
import pino from 'pino';
import {
  DeliveryWorker,
  type DeliveryAttempt,
  type DeliveryObserver,
  type DeliveryStore,
  type PushProvider,
  type RetryPolicy,
} from '../../../src/delivery';
import { EventWorker, type EventWorkerOptions } from '../../../src/delivery/events/event-worker';
import { AccessTokenSource } from '../../../src/delivery/push/fcm/access-token';
import { createFcmProvider } from '../../../src/delivery/push/fcm/fcm-provider';
import { createHttpGatewayProvider } from '../../../src/delivery/sms/http-gateway-provider';
import { createLogSmsProvider } from '../../../src/delivery/sms/log-sms-provider';
import type { DataSet } from '../../../src/store';
import { testClock } from '../../store/store-fixture';
import type { StoreVariant, TestStore } from '../../support/stores';
import { startFakeFcm, type FakeFcm } from './fake-fcm';
import { FakeHttpServer } from './fake-http-server';

export const SCHOOL = 'https://school.example';

export const POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 10_000, maxDelayMs: 3_600_000 };

export interface Harness {
  readonly ctx: TestStore;
  readonly clock: ReturnType<typeof testClock>;
  readonly fcm: FakeFcm;
  readonly gateway: FakeHttpServer;
  readonly worker: DeliveryWorker;
  readonly attempts: DeliveryAttempt[];
  /** Every log line written, as text. */
  readonly logs: string[];
  /** The next values Math.random would give the worker (then 0). */
  readonly randoms: number[];
  close(): Promise<void>;
}

export interface HarnessOptions {
  readonly timeoutMs?: number;
  readonly concurrency?: number;
  readonly leaseSeconds?: number;
  readonly authCodeMaxAgeMs?: number;
  readonly pollMs?: number;
  /** The worker's adaptive limits, when a test needs them small. */
  readonly limits?: DeliveryLimits;
}

export function dataSet(devices: number): DataSet {
  const ids = Array.from({ length: devices }, (_, i) => String(1001 + i));
  return {
    schools: [{ baseUrl: SCHOOL, name: 'School' }],
    devices: ids.map((id) => ({ id: `dev-${id}`, token: `token-${id}`, platform: 'android' as const })),
    students: ids.map((id) => ({
      id,
      school: SCHOOL,
      fullName: `Student ${id}`,
      deviceId: `dev-${id}`,
      active: '1',
      classId: '7A',
    })),
  };
}

export async function startHarness(variant: StoreVariant, options: HarnessOptions = {}): Promise<Harness> {
  const clock = testClock('2030-01-01T00:00:00.000Z');
  const ctx = await variant.create({ now: clock.now });
  await ctx.store.dataSet.writeDataSet(dataSet(3));
  const fcm = await startFakeFcm();
  const gateway = await FakeHttpServer.start();
  const logs: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) });
  const attempts: DeliveryAttempt[] = [];
  const randoms: number[] = [];
  const timeoutMs = options.timeoutMs ?? 2000;
  const worker = new DeliveryWorker({
    store: ctx.store.outbox,
    push: fcmProvider(fcm, timeoutMs, () => clock.now().getTime()),
    sms: createHttpGatewayProvider({
      url: `${gateway.url}/send`,
      method: 'POST',
      format: 'form',
      headers: { 'x-api-key': 'secret-key' },
      bodyTemplate: 'to={phone}&text={text}',
      timeoutMs,
    }),
    observer: { attempted: (attempt) => attempts.push(attempt) },
    logger,
    policy: POLICY,
    authCodeMaxAgeMs: options.authCodeMaxAgeMs ?? 600_000,
    smsTemplate: 'Your code is {code}',
    now: clock.now,
    random: () => randoms.shift() ?? 0,
    concurrency: options.concurrency ?? 8,
    leaseSeconds: options.leaseSeconds ?? 60,
    pollMs: options.pollMs ?? 1000,
    limits: options.limits,
  });
  return {
    ctx,
    clock,
    fcm,
    gateway,
    worker,
    attempts,
    logs,
    randoms,
    async close() {
      await worker.stop(1000);
      await Promise.all([fcm.server.close(), gateway.close()]);
      await ctx.cleanup();
    },
  };
}

/** A worker for push only, logging nowhere. */
export function pushWorker(
  store: DeliveryStore,
  push: PushProvider,
  options: { now?: () => Date; concurrency?: number; observer?: DeliveryObserver } = {},
): DeliveryWorker {
  const logger = pino({ level: 'silent' });
  return new DeliveryWorker({
    store,
    push,
    sms: createLogSmsProvider(logger),
    observer: options.observer ?? { attempted: () => undefined },
    logger,
    policy: POLICY,
    authCodeMaxAgeMs: 600_000,
    smsTemplate: '{code}',
    now: options.now ?? (() => new Date()),
    random: Math.random,
    concurrency: options.concurrency ?? 16,
    leaseSeconds: 60,
    pollMs: 50,
  });
}

/** An FCM provider aimed at the fake. */
/**
 * An event worker on the harness's store and clock, its receivers allowed on
 * loopback (EVENTS_ALLOW_PRIVATE), `options` over the usual ones; the test
 * runs it with runOnce or start.
 */
export function eventWorker(harness: Harness, options: Partial<EventWorkerOptions> = {}): EventWorker {
  return new EventWorker({
    store: harness.ctx.store.outbox,
    logger: pino({ level: 'silent' }),
    now: harness.clock.now,
    random: () => 0,
    concurrency: 16,
    perSchool: 4,
    leaseSeconds: 60,
    pollMs: 50,
    timeoutMs: 2000,
    baseDelayMs: 10_000,
    maxDelayMs: 3_600_000,
    health: { failingAfterMs: 3_600_000, disableAfterMs: 3 * 86_400_000 },
    allowPrivate: true,
    ...options,
  });
}

export function fcmProvider(fcm: FakeFcm, timeoutMs: number, now?: () => number): PushProvider {
  const tokens = new AccessTokenSource({
    credentials: fcm.credentials,
    tokenUrl: fcm.account.tokenUri,
    timeoutMs,
    now,
  });
  return createFcmProvider({ projectId: fcm.account.projectId, baseUrl: fcm.server.url, tokens, timeoutMs, now });
}

/** Queues a push to student 1001's device (or another). */
export function queuePush(harness: Harness, studentId = '1001', type = 'absence'): Promise<string> {
  return harness.ctx.store.outbox.enqueuePushNotification({
    deviceId: `dev-${studentId}`,
    studentId,
    type,
    title: 'غياب | Absence',
    body: 'تم تسجيل غياب\nAn absence was recorded.',
    data: { type, studentId, school: 'https://school.example' },
  });
}
