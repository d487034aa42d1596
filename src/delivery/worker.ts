// The delivery loop: keeps up to `concurrency` messages in flight, claiming
// more (login codes first) whenever half the slots are free, and polling
// when the outbox is empty. Everything it claims is leased, so stopping, or
// dying, mid-send loses nothing: the lease runs out and a worker tries again.
import { CompletionWriter } from './completion-writer';
import { deliverPush, deliverSms, type DeliveryContext } from './deliver';

export interface DeliveryWorkerOptions extends Omit<DeliveryContext, 'completions'> {
  /** Messages in flight at once. */
  readonly concurrency: number;
  /** How long a claim is held before another worker may take the message over. */
  readonly leaseSeconds: number;
  /** Wait between looks at an empty outbox (notify() cuts it short). */
  readonly pollMs: number;
}

const NOTIFY_COALESCE_MS = 5;

// After this many claim failures in a row (store unreachable), wait this long at most.
const MAX_CLAIM_BACKOFF_MS = 30_000;

export class DeliveryWorker {
  readonly #options: DeliveryWorkerOptions;
  readonly #context: DeliveryContext;
  readonly #inFlight = new Set<Promise<void>>();
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

  constructor(options: DeliveryWorkerOptions) {
    if (options.concurrency < 1) throw new RangeError('concurrency must be at least 1');
    this.#options = options;
    this.#pollMs = options.pollMs;
    this.#context = { ...options, completions: new CompletionWriter(options.store) };
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
    return { running: this.#running !== null && !this.#stopping && !this.#loopEnded, startedAt: this.#startedAt, lastClaimAt: this.#lastClaimAt };
  }

  /** Something was queued in this process: look now rather than at the next poll. */
  notify(): void {
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
      this.#options.logger.warn({ abandoned: this.#inFlight.size }, 'delivery worker stopped with sends under way; they are retried when their lease ends');
    }
    this.#running = null;
  }

  /** One claim (up to `concurrency`, login codes first) and its deliveries, awaited. Returns how many were claimed. */
  async runOnce(): Promise<number> {
    const claimed = await this.#claimAndStart(this.#options.concurrency);
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
      let claimed: number;
      try {
        claimed = await this.#claimAndStart(room);
        failures = 0;
      } catch (error) {
        failures++;
        logger.error({ err: error, failures }, 'delivery worker could not claim messages; trying again');
        await this.#sleep(Math.min(this.#pollMs * 2 ** failures, MAX_CLAIM_BACKOFF_MS));
        continue;
      }
      if (claimed < room) await this.#sleep(this.#pollMs);
      else await this.#halfFree();
    }
    await Promise.allSettled([...this.#inFlight]);
  }

  async #claimAndStart(room: number): Promise<number> {
    if (room <= 0) return 0;
    const { store, leaseSeconds } = this.#options;
    const codes = await store.claimAuthCodeMessages(room, leaseSeconds);
    for (const message of codes) this.#track(deliverSms(this.#context, message));
    const pushRoom = room - codes.length;
    const pushes = pushRoom > 0 ? await store.claimPushNotifications(pushRoom, leaseSeconds) : [];
    for (const message of pushes) this.#track(deliverPush(this.#context, message));
    this.#lastClaimAt = this.#options.now();
    return codes.length + pushes.length;
  }

  #track(delivery: Promise<void>): void {
    const tracked: Promise<void> = delivery
      .catch((error: unknown) => {
        this.#options.logger.error({ err: error }, 'delivery failed unexpectedly; the message is retried when its lease ends');
      })
      .finally(() => {
        this.#inFlight.delete(tracked);
        if (this.#inFlight.size <= this.#options.concurrency / 2) this.#slotFree?.();
      });
    this.#inFlight.add(tracked);
  }

  // Sleeps `ms`, or until notify(): then a few ms more, so that a burst of
  // calls is claimed in one statement rather than one claim per call (on
  // PostgreSQL each claim is a round trip the database has to plan).
  #sleep(ms: number): Promise<void> {
    if (this.#stopping) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let timer = setTimeout(resolve, ms);
      let coalescing = false;
      const wake = () => {
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
      this.#wake = null;
      this.#wakeRequested = false;
    });
  }

  #halfFree(): Promise<void> {
    if (this.#stopping || this.#inFlight.size <= this.#options.concurrency / 2) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#slotFree = resolve;
    }).then(() => {
      this.#slotFree = null;
    });
  }
}
