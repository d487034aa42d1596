// Delivers the events of the event outbox to the schools' systems
// (docs/delivery.md#delivery-events): its own loop and its own slots, so
// that a slow or dead receiver never holds up a push or a login code. Claims
// are leased like the push outbox's: a worker that dies mid-send loses
// nothing, the event is sent again when its lease ends (at least once; the
// receiver drops a repeat by its webhook-id).
import type { Logger } from '../../log';
import {
  GroupCommit,
  type ClaimedEvent,
  type EventCompletion,
  type EventCompletionEntry,
  type EventHealthRule,
} from '../../store';
import { STATUS_CODES } from 'node:http';
import { failure } from '../provider';
import http from 'node:http';
import https from 'node:https';
import { httpCall, type HttpAgents } from '../http/http-call';
import { notPublicText, privateLiteral, publicLookup } from './public-address';
import { parseRetryAfter } from '../http/retry-after';
import { retryDelayMs } from '../retry-policy';
import { eventSignature, eventSigningKey } from '../../shared/event-signature';
import type { KeyObject } from 'node:crypto';

/** What the event worker needs of the store (the opened store's outbox provides it). */
export interface EventStore {
  claimEvents(limit: number, perSchool: number, leaseSeconds: number): Promise<ClaimedEvent[]>;
  completeEvents(entries: readonly EventCompletionEntry[], rule: EventHealthRule): Promise<boolean[]>;
}

export type EventOutcome = 'sent' | 'retry' | 'gone';

export interface EventObserver {
  eventAttempted(attempt: { readonly outcome: EventOutcome; readonly durationMs: number }): void;
}

export interface EventWorkerOptions {
  readonly store: EventStore;
  readonly logger: Logger;
  readonly now: () => Date;
  readonly random: () => number;
  /** Events in flight at once, all schools together. */
  readonly concurrency: number;
  /** Events in flight at once for one school. */
  readonly perSchool: number;
  readonly leaseSeconds: number;
  readonly pollMs: number;
  /** How long a receiver has to answer. */
  readonly timeoutMs: number;
  /** First wait after a failure, doubling with each attempt up to maxDelayMs (never sooner than Retry-After). */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly health: EventHealthRule;
  /**
   * EVENTS_ALLOW_PRIVATE: a receiver may be at any address. False: only at a
   * public one (public-address.ts), checked on the address connected to.
   */
  readonly allowPrivate: boolean;
  readonly observer?: EventObserver;
  /**
   * True while the push and SMS worker has more due than it has room for:
   * the events then keep to a share of their slots and claim less often, so
   * that they never slow those channels, and catch up once it is not
   * (docs/delivery.md#delivery-events). Unset: never.
   */
  readonly pushesBusy?: () => boolean;
  /** The least time between two claims while the pushes are busy; BUSY_CLAIM_EVERY_MS unless set (tests). */
  readonly busyClaimEveryMs?: number;
}

const USER_AGENT = 'student-notifications-events/1';
// A failure to claim (store unreachable): wait longer each time, up to this.
const MAX_CLAIM_BACKOFF_MS = 30_000;
// Results written together (as the pushes' are, completion-writer.ts): one transaction per batch rather than per
// event, bounded so that a burst does not hold the write lock long.
const MAX_COMPLETION_BATCH = 200;
// While the pushes are busy: the share of the slots the events keep to, and the least time between two claims
// (at most a share each: 40 events a second with 32 slots). Given the slots alone, the events took the pushes
// half their drain where the worker's CPU bounds it, and a quarter of the slots still a third: an event costs
// a push's CPU or more, claim and result included (docs/benchmark.md#delivery-events).
const BUSY_SHARE = 1 / 4;
const BUSY_CLAIM_EVERY_MS = 200;
// After a wake-up, this long before claiming, so that a burst of results is claimed for in one transaction.
const NOTIFY_COALESCE_MS = 5;
// Signing keys kept, by secret (one per school); all dropped when there are more.
const MAX_KEYS = 1000;

export class EventWorker {
  readonly #options: EventWorkerOptions;
  readonly #inFlight = new Set<Promise<void>>();
  // Results answered but not yet written: they hold no slot (the receiver is done), but stop() waits for them.
  readonly #writing = new Set<Promise<void>>();
  readonly #completions: GroupCommit<EventCompletionEntry, boolean>;
  #running: Promise<void> | null = null;
  #stopping = false;
  #wake: (() => void) | null = null;
  // A notify() that came while the loop was not asleep (claiming, or waiting for a slot): the next sleep is skipped.
  #notified = false;
  // When the last claim started (performance.now()), for the pace while the pushes are busy.
  #lastClaimAt = -Infinity;
  readonly #keys = new Map<string, KeyObject>();
  // The worker's own pools: their connections are made only to public addresses unless allowPrivate.
  readonly #agents: HttpAgents | undefined;

  constructor(options: EventWorkerOptions) {
    if (options.concurrency < 1 || options.perSchool < 1) throw new RangeError('event concurrency must be at least 1');
    this.#options = options;
    const pool = { keepAlive: true, maxSockets: 256, lookup: publicLookup };
    this.#agents = options.allowPrivate
      ? undefined
      : { 'http:': new http.Agent(pool), 'https:': new https.Agent(pool) };
    this.#completions = new GroupCommit({
      write: (entries) => options.store.completeEvents(entries, options.health),
      waitMs: 0,
      maxBatch: MAX_COMPLETION_BATCH,
      maxInFlight: 1,
    });
  }

  start(): void {
    if (this.#running !== null) return;
    this.#stopping = false;
    this.#running = this.#loop();
  }

  /** Look now rather than at the next poll. */
  notify(): void {
    if (this.#wake === null) this.#notified = true;
    else this.#wake();
  }

  /** Claims nothing more; waits up to `timeoutMs` for the deliveries under way (the rest are sent again after their lease). */
  async stop(timeoutMs: number): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    const running = this.#running;
    if (running !== null) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([running, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
      this.#running = null;
    }
    // The pools' idle connections are the worker's own: none is left open behind it.
    this.#agents?.['http:'].destroy();
    this.#agents?.['https:'].destroy();
  }

  /** One claim and its deliveries, awaited; how many were claimed. */
  async runOnce(): Promise<number> {
    const claimed = await this.#claimAndStart(this.#options.concurrency);
    await Promise.all(this.#inFlight);
    await Promise.all(this.#writing);
    return claimed;
  }

  async #loop(): Promise<void> {
    const { concurrency, logger, pollMs } = this.#options;
    const busyLimit = Math.max(1, Math.floor(concurrency * BUSY_SHARE));
    const busyClaimEveryMs = this.#options.busyClaimEveryMs ?? BUSY_CLAIM_EVERY_MS;
    let failures = 0;
    while (!this.#stopping) {
      const busy = this.#options.pushesBusy?.() === true;
      const limit = busy ? busyLimit : concurrency;
      // Claim when a quarter of the slots are free, not at each free slot: every claim is a write transaction (the
      // store's write lock on SQLite), and one per event cost the pushes a third of their drain
      // (scripts/bench-events.ts, docs/benchmark.md#delivery-events). While the pushes are busy, only once the
      // events' share is all free: one claim per share.
      const batch = busy ? limit : Math.max(1, Math.ceil(limit / 4));
      const room = limit - this.#inFlight.size;
      if (room < batch && this.#inFlight.size > 0) {
        await this.#slotFreed();
        continue;
      }
      const early = busy ? this.#lastClaimAt + busyClaimEveryMs - performance.now() : 0;
      if (early > 0) {
        // A notify() ends the wait too: the pushes may no longer be busy.
        await this.#sleep(early, NOTIFY_COALESCE_MS);
        continue;
      }
      this.#lastClaimAt = performance.now();
      let claimed: number;
      try {
        claimed = room > 0 ? await this.#claimAndStart(room) : 0;
        failures = 0;
      } catch (error) {
        failures++;
        logger.error({ err: error, failures }, 'event worker could not claim events; trying again');
        const backoff = Math.min(pollMs * 2 ** failures, MAX_CLAIM_BACKOFF_MS);
        await this.#sleep(backoff, backoff);
        continue;
      }
      // Full: wait for a slot; otherwise nothing more is due (or every school is at its bound) until new events
      // are written (notify()) or the poll.
      if (room > 0 && claimed >= room) await this.#slotFreed();
      else await this.#sleep(pollMs, NOTIFY_COALESCE_MS);
    }
    await Promise.allSettled([...this.#inFlight]);
    await Promise.allSettled([...this.#writing]);
  }

  async #claimAndStart(room: number): Promise<number> {
    const { store, perSchool, leaseSeconds } = this.#options;
    const events = await store.claimEvents(room, perSchool, leaseSeconds);
    for (const event of events) {
      // Once it is done a slot is free, and the message's next event may be due: the worker looks again, even if
      // the loop is claiming now.
      this.#track(
        this.#inFlight,
        this.#deliver(event),
        event,
        'event delivery failed unexpectedly; retried after its lease',
      );
    }
    return events.length;
  }

  async #deliver(event: ClaimedEvent): Promise<void> {
    const { observer } = this.#options;
    const started = performance.now();
    const completion = await this.#post(event);
    const outcome: EventOutcome =
      completion.status === 'sent' ? 'sent' : completion.status === 'gone' ? 'gone' : 'retry';
    observer?.eventAttempted({ outcome, durationMs: performance.now() - started });
    // The slot is free once the receiver has answered: a slot held until the result's batch was written held it
    // for the store's time too, most of an event's time under load (docs/benchmark.md#delivery-events).
    // The message's next event is due once this one is written.
    this.#track(
      this.#writing,
      this.#record(event, completion),
      event,
      'event result not written; sent again after its lease',
    );
  }

  /**
   * Holds `work` in `set` until it settles (stop() waits for both sets), logs
   * its failure with `failed`, then wakes the loop: a written result may make
   * the message's next event due and frees its school's room. (A delivery's
   * end frees a slot, which a loop waiting for one sees by itself.)
   */
  #track(set: Set<Promise<void>>, work: Promise<void>, event: ClaimedEvent, failed: string): void {
    const tracked: Promise<void> = work
      .catch((error: unknown) => {
        this.#options.logger.error({ err: error, event: event.id }, failed);
      })
      .finally(() => {
        set.delete(tracked);
        if (set === this.#writing) this.notify();
      });
    set.add(tracked);
  }

  async #record(event: ClaimedEvent, completion: EventCompletion): Promise<void> {
    const { logger } = this.#options;
    const current = await this.#completions.submit({
      id: event.id,
      claimToken: event.claimToken,
      schoolKey: event.schoolKey,
      completion,
    });
    if (current !== true)
      logger.warn({ event: event.id }, 'event result dropped: its lease ran out and it was claimed again');
    else if (completion.status === 'gone')
      logger.warn(
        { event: event.id, school: event.schoolKey },
        "event receiver answered 410: the school's subscription is disabled",
      );
    else if (completion.status === 'failed')
      logger.debug(
        { event: event.id, retryAt: completion.retryAt, error: completion.error },
        'event delivery failed; retrying later',
      );
  }

  // One attempt: signed with this attempt's time, as the specification asks.
  async #post(event: ClaimedEvent): Promise<EventCompletion> {
    const { now, timeoutMs } = this.#options;
    const timestamp = Math.floor(now().getTime() / 1000);
    // An address in the URL is never looked up, so it is checked here; a name is checked by the pools' lookup.
    const literal = this.#agents === undefined ? null : privateLiteral(event.url);
    // node:http with keep-alive (http-call.ts), as the providers: fetch cost four times the CPU per request, and
    // events are two requests a push (scripts/bench-events.ts). It follows no redirect.
    const answer =
      literal !== null
        ? failure('not_public', notPublicText(literal))
        : await httpCall({
            url: event.url,
            method: 'POST',
            body: event.body,
            timeoutMs,
            ...(this.#agents === undefined ? {} : { agents: this.#agents }),
            headers: {
              'content-type': 'application/json',
              'user-agent': USER_AGENT,
              'webhook-id': event.id,
              'webhook-timestamp': String(timestamp),
              'webhook-signature': eventSignature(this.#key(event.secret), event.id, timestamp, event.body),
            },
          });
    let status = 0;
    let retryAfter: string | null = null;
    let error: string;
    if (answer.ok) {
      // The receiver's answer is not read: only its status counts.
      status = answer.status;
      if (status >= 200 && status < 300) return { status: 'sent' };
      retryAfter = answer.headers['retry-after'] ?? null;
      const phrase = STATUS_CODES[status];
      error = `http_${status}: the receiver answered ${status}${phrase === undefined ? '' : ` ${phrase}`}`;
    } else {
      // Its words name the receiver's host, never its path or query (which may carry a credential).
      error = `network: ${answer.code === 'timeout' ? 'no answer in time' : answer.message}`;
    }
    const retryAfterMs = parseRetryAfter(retryAfter, now().getTime());
    const delay = retryDelayMs(
      { rateLimited: false, retryAfterMs },
      event.attempts,
      {
        maxAttempts: Number.POSITIVE_INFINITY,
        baseDelayMs: this.#options.baseDelayMs,
        maxDelayMs: this.#options.maxDelayMs,
      },
      this.#options.random,
    );
    const retryAt = new Date(now().getTime() + delay).toISOString();
    return { status: status === 410 ? 'gone' : 'failed', retryAt, error };
  }

  // Until a delivery ends or notify(): the pushes may no longer be busy, and the events' share is then all their slots.
  #slotFreed(): Promise<void> {
    if (this.#notified) {
      this.#notified = false;
      return Promise.resolve();
    }
    let wake: (() => void) | null = null;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    this.#wake = wake;
    return Promise.race([...this.#inFlight, woken]).then(() => {
      if (this.#wake === wake) this.#wake = null;
    });
  }

  #key(secret: string): KeyObject {
    let key = this.#keys.get(secret);
    if (key === undefined) {
      if (this.#keys.size >= MAX_KEYS) this.#keys.clear();
      key = eventSigningKey(secret);
      this.#keys.set(secret, key);
    }
    return key;
  }

  // Sleeps `ms`, or until notify() and `coalesceMs` more (at least `coalesceMs` when notified before).
  #sleep(ms: number, coalesceMs: number): Promise<void> {
    if (this.#stopping) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let woken = false;
      const finish = () => {
        clearTimeout(timer);
        if (this.#wake === onWake) this.#wake = null;
        resolve();
      };
      let timer = setTimeout(finish, ms);
      const onWake = (): void => {
        if (this.#stopping) return finish();
        if (woken) return;
        woken = true;
        clearTimeout(timer);
        timer = setTimeout(finish, coalesceMs);
      };
      this.#wake = onWake;
      if (this.#notified) {
        this.#notified = false;
        onWake();
      }
    });
  }
}
