// The console on a real store with a clock the test moves, behind an Express
// app (as the service mounts it), and a browser-like client that signs in by
// the form, keeping its cookies.
import bcrypt from 'bcryptjs';
import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { createBcryptPool, type BcryptPool } from '../../src/access/bcrypt-pool';
import { createConsole, type ConsoleSettings } from '../../src/console';
import { createImportSlot } from '../../src/console/import-runner';
import type { App } from '../../src/server';
import type { ConsoleRole, DataSet, DeliveryCompletion, OpenedStore } from '../../src/store';
import { FIXTURES } from '../support/fixtures';
import type { StoreVariant, TestStore } from '../support/stores';

export const PASSWORD = 'correct horse battery';

export class Clock {
  constructor(public ms = Date.parse('2026-03-02T08:00:00.000Z')) {}
  readonly now = (): Date => new Date(this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface ConsoleHarness {
  readonly app: express.Express;
  readonly logs: Record<string, unknown>[];
  readonly bcrypt: BcryptPool;
  /** The roster import's jobs, run here by a background slot of the test's own. */
  readonly imports: ImportsDriver;
}

export interface ImportsDriver {
  /** Runs queued jobs until no job of upload `id` is queued or running. */
  settled(id: string): Promise<void>;
}

/** A background slot driven by the test: it claims and runs jobs only while settled() waits. */
export function importsDriver(store: OpenedStore, clock: Clock, logger: pino.Logger): ImportsDriver {
  const slot = createImportSlot({
    stores: { console: store.console, import: store.dataSet, access: store.access },
    limits: { maxRows: 200_000 },
    logger,
    now: clock.now,
  });
  return {
    async settled(id) {
      for (let round = 0; round < 1000; round++) {
        const upload = await store.console.findUpload(id);
        const busy = [upload?.check, upload?.apply].some((job) => job?.state === 'queued' || job?.state === 'running');
        if (!busy) return;
        if (!(await slot.runOnce())) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`the import jobs of ${id} did not end`);
    },
  };
}

/** `pool`: the password checks; a test may give one that counts them. */
export function consoleApp(
  store: OpenedStore,
  clock: Clock,
  settings: Partial<ConsoleSettings> = {},
  pool: BcryptPool = createBcryptPool({ threads: 1 }),
): ConsoleHarness {
  const logs: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const app = express();
  app.set('trust proxy', false);
  const handler = createConsole({
    stores: { console: store.console, admin: store.admin, access: store.access },
    settings: { secureCookies: false, idleMs: 30 * 60_000, maxAgeMs: 12 * 3_600_000, allow: null, ...settings },
    logger,
    bcrypt: pool,
    now: clock.now,
  });
  app.use(handler);
  return { app, logs, bcrypt: pool, imports: importsDriver(store, clock, logger) };
}

/** An account with a cheap hash (cost 4): the tests check the flow, not bcrypt's cost. */
export async function addAccount(store: OpenedStore, name: string, role: ConsoleRole): Promise<void> {
  await store.console.writeAccount({ name, passwordHash: bcrypt.hashSync(PASSWORD, 4), role });
}

/** Queues a push for `studentId` on device dev-1001, as the service does for an absence; resolves to its id. */
export function queuePush(store: OpenedStore, studentId = '1001'): Promise<string> {
  return store.outbox.enqueuePushNotification({
    deviceId: 'dev-1001',
    studentId,
    type: 'absence',
    title: 't',
    body: 'b',
    data: {},
  });
}

/**
 * Claims the next due push, which must be `id`, and completes it with
 * `completion` (and the provider's `code`) as a worker would; resolves to
 * whether the store took the result. `whileClaimed` runs between the two
 * (a test moves its clock there, as a send takes time).
 */
export async function completePush(
  store: OpenedStore,
  id: string,
  completion: DeliveryCompletion,
  code?: string,
  whileClaimed?: () => void,
): Promise<boolean> {
  const [claimed] = await store.outbox.claimPushNotifications(1, 30);
  if (claimed?.id !== id) throw new Error(`claimed ${claimed?.id ?? 'nothing'} instead of the push ${id}`);
  whileClaimed?.();
  const [taken] = await store.outbox.completeDeliveries([
    { channel: 'push', id, claimToken: claimed.claimToken, completion, code: code ?? null },
  ]);
  return taken === true;
}

/** The value of a hidden field `name` in a page. */
export function hiddenField(page: string, name = 'csrf'): string {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(page);
  if (match === null) throw new Error(`no hidden ${name} field in the page`);
  return match[1] ?? '';
}

export interface Browser {
  readonly agent: ReturnType<typeof request.agent>;
  /** The CSRF token of the signed-in session, read from the overview's sign-out form. */
  csrf(): Promise<string>;
  /** `sns_console_session=…`, for another client (another node's app). */
  readonly sessionCookie: string;
}

/** Signs in by the form as a browser would; rejects unless the sign-in succeeded. */
export async function signedIn(app: App, name: string, password = PASSWORD): Promise<Browser> {
  const agent = request.agent(app);
  const form = await agent.get('/console/sign-in');
  const answer = await agent
    .post('/console/sign-in')
    .type('form')
    .send({ csrf: hiddenField(form.text), name, password });
  if (answer.status !== 303) throw new Error(`sign-in answered ${answer.status}`);
  const set = answer.headers['set-cookie'] as unknown as string[];
  const sessionCookie = (set.find((c) => c.startsWith('sns_console_session=')) ?? '').split(';')[0] ?? '';
  return {
    agent,
    sessionCookie,
    csrf: async () => hiddenField((await agent.get('/console/')).text),
  };
}

export interface ConsoleWorld {
  readonly ctx: TestStore;
  readonly clock: Clock;
  readonly harness: ConsoleHarness;
}

/**
 * What most console tests start from: a store on `variant` with the test's
 * clock, `data` written to it (the fixtures by default), the console app on
 * it, and `accounts` (an operator and a viewer by default), each with PASSWORD.
 */
export async function openConsoleWorld(
  variant: StoreVariant,
  options: { data?: readonly DataSet[]; accounts?: Readonly<Record<string, ConsoleRole>> } = {},
): Promise<ConsoleWorld> {
  const clock = new Clock();
  const ctx = await variant.create({ now: clock.now });
  for (const data of options.data ?? [FIXTURES]) await ctx.store.dataSet.writeDataSet(data);
  const harness = consoleApp(ctx.store, clock);
  const accounts: Readonly<Record<string, ConsoleRole>> = options.accounts ?? { olga: 'operator', victor: 'viewer' };
  for (const [name, role] of Object.entries(accounts)) await addAccount(ctx.store, name, role);
  return { ctx, clock, harness };
}

/**
 * The set-up of a console test file: a fresh world (openConsoleWorld) before
 * each test, closed after it. Its fields are the current test's; read them
 * inside the tests and hooks, not when the file is loaded.
 */
export function useConsoleWorld(
  variant: StoreVariant,
  options: Parameters<typeof openConsoleWorld>[1] = {},
): ConsoleWorld {
  let current: ConsoleWorld | null = null;
  const open = (): ConsoleWorld => {
    if (current === null) throw new Error('the console world is open only inside a test');
    return current;
  };
  beforeEach(async () => {
    current = await openConsoleWorld(variant, options);
  });
  afterEach(async () => {
    const closing = open();
    current = null;
    await closeConsoleWorld(closing.ctx, closing.harness);
  });
  return {
    get ctx() {
      return open().ctx;
    },
    get clock() {
      return open().clock;
    },
    get harness() {
      return open().harness;
    },
  };
}

/** Ends what openConsoleWorld started. */
export async function closeConsoleWorld(ctx: TestStore, harness: ConsoleHarness): Promise<void> {
  await harness.bcrypt.close();
  await ctx.cleanup();
}
