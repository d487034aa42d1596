// The delivery loop: keeps as many messages in flight as each channel's
// adaptive limit allows (src/delivery/concurrency), never more than
// `concurrency` in all, claiming more (login codes first) whenever a busy
// channel has a quarter of its slots free, and polling when the outbox is empty.
// Everything it claims is leased, so stopping, or dying, mid-send loses
// nothing: the lease runs out and a worker tries again.
import type { ClaimedPushNotification } from '../store';
import { CompletionWriter } from './completion-writer';
import { createDeliveryLimits, type AdaptiveLimit, type DeliveryLimits } from './concurrency';
import { deliverPush, deliverSms, interruptedSend, type DeliveryContext } from './deliver';
import type { DeliveryChannel } from './observer';
import { SchoolProjects } from './school-projects';

export interface DeliveryWorkerOptions extends Omit<DeliveryContext, 'completions' | 'limits'> {
  /** Messages in flight at once, at most (the ceiling of the adaptive limits). */
  readonly concurrency: number;
  /** The floor of the adaptive limits; 4 when unset. */
  readonly concurrencyFloor?: number;
  /** The limits to follow (tests inject their own clock); made from concurrency and concurrencyFloor when unset. */
  readonly limits?: DeliveryLimits;
  /** How long a claim is held before another worker may take the message over. */
  readonly leaseSeconds: number;
  /** Wait between looks at an empty outbox (notify() cuts it short). */
  readonly pollMs: number;
}

const NOTIFY_COALESCE_MS = 5;
// A busy channel claims again once this share of its limit is free. A claim
// takes a PostgreSQL round trip and its writes (10-30 ms for a few hundred
// rows), during which sends keep finishing: at a half, the sends in flight
// averaged about half the limit at 50 ms provider latency; at a quarter they
// stay nearer the limit, for twice the claims of half the size
// (docs/delivery.md#concurrency).
const CLAIM_AT_FREE_SHARE = 0.25;
const DEFAULT_FLOOR = 4;
// While the loop keeps claiming pushes, a login-code outbox found empty is
// looked at again after this long, or at once when told a code was queued
// (notify('sms'), or a notify naming no channel). An empty look is a write
// transaction on SQLite and two statements on PostgreSQL (about 210 and 470 µs
// of the worker's CPU here), and at 0 ms provider latency the loop claims
// tens of times a second (docs/delivery.md#cpu-per-push). A code queued by
// another process with no NOTIFY (SQLite) waited up to DELIVERY_POLL_MS for
// an idle worker already; this adds at most this much while pushes are
// under way.
const EMPTY_SMS_RECHECK_MS = 50;

// After this many claim failures in a row (store unreachable), wait this long at most.
const MAX_CLAIM_BACKOFF_MS = 30_000;

export class DeliveryWorker {
  readonly #options: DeliveryWorkerOptions;
  readonly #context: DeliveryContext;
  readonly #inFlight = new Set<Promise<void>>();
  // Only for a provider that sends by project (FCM with FCM_PROJECTS): others never ask the store.
  readonly #projects: SchoolProjects | null;
  #running: Promise<void> | null = null;
  #stopping = false;
  #wakeRequested = false;
  #wake: (() => void) | null = null;
  #slotFree: (() => void) | null = null;
  // Readiness (src/health/readiness.ts): the pace of the idle loop, when a claim last ran, whether the loop ended.
  #pollMs: number;
  #lastClaimAt: Date | null = null;
  #startedAt: Date | null = null;
  #loopEnded = false;
  // The channels whose room the last claim filled: the loop waits for a quarter of one of them to empty.
  #full = { sms: false, push: false };
  // When the loop last found no login code due (performance.now()); null: look at the next claim.
  #smsFoundEmptyAt: number | null = null;

  constructor(options: DeliveryWorkerOptions) {
    if (options.concurrency < 1) throw new RangeError('concurrency must be at least 1');
    this.#options = options;
    this.#pollMs = options.pollMs;
    const limits =
      options.limits ??
      createDeliveryLimits({ floor: options.concurrencyFloor ?? DEFAULT_FLOOR, ceiling: options.concurrency });
    this.#context = { ...options, limits, completions: new CompletionWriter(options.store) };
    this.#projects = options.push.byProject === true ? new SchoolProjects(options.store) : null;
  }

  /** Runs the loop in the background until stop(). */
  start(): void {
    if (this.#running !== null) return;
    this.#stopping = false;
    this.#loopEnded = false;
    this.#startedAt = this.#options.now();
    this.#running = this.#loop().finally(() => {
      this.#loopEnded = true;
    });
  }

  /** The idle loop's pace from now on (slower while LISTEN wakes it: src/delivery/outbox-wake-up.ts). */
  pollEvery(ms: number): void {
    this.#pollMs = ms;
  }

  /** For readiness: running (started, not stopped, loop alive), and when it last claimed. */
  health(): { readonly running: boolean; readonly startedAt: Date | null; readonly lastClaimAt: Date | null } {
    return {
      running: this.#running !== null && !this.#stopping && !this.#loopEnded,
      startedAt: this.#startedAt,
      lastClaimAt: this.#lastClaimAt,
    };
  }

  /** Whether the last claim filled a channel's room: more is due than is in flight (the event worker yields to it). */
  busy(): boolean {
    return this.#running !== null && !this.#stopping && (this.#full.sms || this.#full.push);
  }

  /**
   * Something was queued (`channel`: where, when known): look now rather than
   * at the next poll, and at the login codes too unless only pushes were queued.
   */
  notify(channel?: string): void {
    if (channel !== 'push') this.#smsFoundEmptyAt = null;
    this.#wakeRequested = true;
    this.#wake?.();
  }

  /**
   * Claims nothing more and waits up to `timeoutMs` for the sends under way.
   * Whatever is still running then is abandoned: its lease runs out and
   * another worker (or this one, next start) tries again.
   */
  async stop(timeoutMs: number): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    this.#slotFree?.();
    const running = this.#running;
    if (running === null) return;
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      running.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (!finished) {
      this.#options.logger.warn(
        { abandoned: this.#inFlight.size },
        'delivery worker stopped with sends under way; they are retried when their lease ends',
      );
    }
    this.#running = null;
  }

  /** One claim (as much as the limits allow, login codes first) and its deliveries, awaited. Returns how many were claimed. */
  async runOnce(): Promise<number> {
    const claimed = await this.#claimAndStart(this.#options.concurrency, true);
    await Promise.all(this.#inFlight);
    return claimed;
  }

  /** runOnce() until nothing is due. */
  async drain(): Promise<number> {
    let total = 0;
    for (let claimed = await this.runOnce(); claimed > 0; claimed = await this.runOnce()) total += claimed;
    return total;
  }

  async #loop(): Promise<void> {
    const { concurrency, logger } = this.#options;
    let failures = 0;
    while (!this.#stopping) {
      const room = concurrency - this.#inFlight.size;
      try {
        await this.#claimAndStart(room, this.#smsWorthALook());
        failures = 0;
      } catch (error) {
        failures++;
        logger.error({ err: error, failures }, 'delivery worker could not claim messages; trying again');
        await this.#sleep(Math.min(this.#pollMs * 2 ** failures, MAX_CLAIM_BACKOFF_MS));
        continue;
      }
      // Every channel got less than it asked for: the outbox has nothing more due.
      if (!this.#full.sms && !this.#full.push) await this.#sleep(this.#pollMs);
      else await this.#roomFreed();
    }
    await Promise.allSettled([...this.#inFlight]);
  }

  // No login code was due a moment ago, and none has been queued since as far as this worker was told.
  #smsWorthALook(): boolean {
    return this.#smsFoundEmptyAt === null || performance.now() - this.#smsFoundEmptyAt >= EMPTY_SMS_RECHECK_MS;
  }

  async #claimAndStart(room: number, lookAtSms: boolean): Promise<number> {
    const { store, leaseSeconds } = this.#options;
    const { sms, push } = this.#context.limits;
    if (room <= 0) {
      this.#full = { sms: true, push: true };
      return 0;
    }
    const smsRoom = lookAtSms ? Math.min(room, sms.available()) : 0;
    const lookedAt = performance.now();
    const claim = smsRoom > 0 ? await store.claimAuthCodeMessages(smsRoom, leaseSeconds) : null;
    // From before the claim: a code queued while it ran is looked for again in time.
    if (claim !== null) this.#smsFoundEmptyAt = claim.messages.length === 0 ? lookedAt : null;
    const codes = claim?.messages ?? [];
    for (const id of claim?.interrupted ?? []) interruptedSend(this.#context, id);
    for (const message of codes) this.#track('sms', deliverSms(this.#context, message));
    const pushRoom = Math.min(room - codes.length, push.available());
    const pushes = pushRoom > 0 ? await store.claimPushNotifications(pushRoom, leaseSeconds) : [];
    await this.#startPushes(pushes);
    // Not looked at: as it was last seen, empty.
    this.#full = { sms: lookAtSms && codes.length >= smsRoom, push: pushes.length >= pushRoom };
    this.#lastClaimAt = this.#options.now();
    return codes.length + pushes.length;
  }

  async #startPushes(pushes: readonly ClaimedPushNotification[]): Promise<void> {
    if (this.#projects === null) {
      for (const message of pushes) this.#track('push', deliverPush(this.#context, message));
      return;
    }
    // A store that cannot say now leaves the claim leased: the messages are tried again when it ends.
    const projectOf = await this.#projects.resolve(pushes.map((message) => message.schoolKey));
    for (const message of pushes)
      this.#track('push', deliverPush(this.#context, message, projectOf(message.schoolKey)));
  }

  #track(channel: DeliveryChannel, delivery: Promise<void>): void {
    const limit = this.#context.limits[channel];
    limit.acquire();
    this.#reportConcurrency(channel);
    const tracked: Promise<void> = delivery
      .catch((error: unknown) => {
        this.#options.logger.error(
          { err: error },
          'delivery failed unexpectedly; the message is retried when its lease ends',
        );
      })
      .finally(() => {
        limit.release();
        this.#reportConcurrency(channel);
        this.#inFlight.delete(tracked);
        if (this.#roomToClaim()) this.#slotFree?.();
      });
    this.#inFlight.add(tracked);
  }

  #reportConcurrency(channel: DeliveryChannel): void {
    const limit = this.#context.limits[channel];
    const provider = channel === 'push' ? this.#options.push.name : this.#options.sms.name;
    this.#options.observer.concurrency?.({ channel, provider, inFlight: limit.inFlight, limit: limit.limit });
  }

  // Worth another claim: some room in all, and a channel that was full has a quarter of its limit free.
  #roomToClaim(): boolean {
    if (this.#inFlight.size >= this.#options.concurrency) return false;
    const { sms, push } = this.#context.limits;
    const enough = (limit: AdaptiveLimit) => limit.available() >= Math.max(1, limit.limit * CLAIM_AT_FREE_SHARE);
    return (this.#full.sms && enough(sms)) || (this.#full.push && enough(push));
  }

  // Sleeps `ms`, or until notify(): then a few ms more, so that a burst of
  // calls is claimed in one statement rather than one claim per call (on
  // PostgreSQL each claim is a round trip the database has to plan). Ends at
  // once when `until` settles.
  #sleep(ms: number, until?: Promise<void>): Promise<void> {
    if (this.#stopping) return Promise.resolve();
    let wake: (() => void) | null = null;
    return new Promise<void>((resolve) => {
      let timer = setTimeout(resolve, ms);
      void until?.then(() => {
        clearTimeout(timer);
        resolve();
      });
      let coalescing = false;
      wake = () => {
        if (this.#stopping) {
          clearTimeout(timer);
          resolve();
        } else if (!coalescing) {
          coalescing = true;
          clearTimeout(timer);
          timer = setTimeout(resolve, NOTIFY_COALESCE_MS);
        }
      };
      this.#wake = wake;
      if (this.#wakeRequested) wake();
    }).then(() => {
      if (this.#wake === wake) this.#wake = null;
      this.#wakeRequested = false;
    });
  }

  // Until a full channel has a quarter of its limit free. A channel that got less
  // than it asked for has room: new work for it (notify(), the poll) ends
  // the wait too, so that a busy provider never holds up the other channel.
  #roomFreed(): Promise<void> {
    if (this.#stopping || this.#roomToClaim()) return Promise.resolve();
    // Nothing in flight to wait for (a limit of 0 cannot happen: the floor is at least 1).
    if (this.#inFlight.size === 0) return Promise.resolve();
    const slotFree = new Promise<void>((resolve) => {
      this.#slotFree = resolve;
    });
    const waited = this.#full.sms && this.#full.push ? slotFree : this.#sleep(this.#pollMs, slotFree);
    return waited.then(() => {
      this.#slotFree = null;
    });
  }
}
