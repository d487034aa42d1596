// How many sends to one provider may be in flight at once, adapted to how it
// answers (docs/delivery.md#concurrency). Little's law sets the need: a
// provider 50 ms away needs 250 sends in flight for 5,000 a second, one on
// loopback a handful. So the limit starts modestly and grows by one for each
// answer that came back while the limit was in use (it doubles every round
// trip, like TCP's slow start) up to the ceiling, but never past what 10,000
// sends a second need at the fastest latency seen lately (more in flight
// than that only queues at the provider); it is halved, at most once
// per round trip, when the provider says it is overloaded (429, 503, a
// timeout, a dropped connection), and trimmed by a tenth when its answers
// slow down well beyond the fastest seen lately (it is queueing our
// requests). The floor keeps a trickle going whatever happens.

export interface AdaptiveLimitOptions {
  readonly floor: number;
  readonly ceiling: number;
  /** The starting limit (clamped to floor..ceiling); 32 when unset. */
  readonly initial?: number;
  /** Milliseconds; injected by tests. */
  readonly now?: () => number;
}

/** `answered`: the provider answered, whatever it said; `overloaded`: it asked us to slow down or failed to answer. */
export type SendSignal = 'answered' | 'overloaded';

const DEFAULT_INITIAL = 32;
const OVERLOAD_FACTOR = 0.5;
const SLOW_FACTOR = 0.9;
// Answers slower than both of these (against the fastest recent answer) mean the provider is queueing.
const SLOW_RATIO = 2;
const SLOW_MARGIN_MS = 50;
// Weight of a new sample in the smoothed latency.
const SMOOTHING = 0.1;
// Sends per millisecond one worker aims at, at most: with the fastest recent
// latency it caps the growth (Little's law), so that a provider answering in
// 2 ms gets 32 sends at once, not 512.
const TARGET_PER_MS = 10;
// The fastest answer is forgotten after this long, so that a provider that became slower for good becomes the new normal.
const BASELINE_WINDOW_MS = 30_000;

export class AdaptiveLimit {
  readonly floor: number;
  readonly ceiling: number;
  readonly #now: () => number;
  #limit: number;
  #inFlight = 0;
  #smoothedMs: number | null = null;
  #baselineMs = Number.POSITIVE_INFINITY;
  #windowMinMs = Number.POSITIVE_INFINITY;
  #windowStart: number;
  #lastCut = Number.NEGATIVE_INFINITY;
  // When sends last filled half the limit or more: growth only follows a limit in use.
  #busyAt = Number.NEGATIVE_INFINITY;

  constructor(options: AdaptiveLimitOptions) {
    if (options.floor < 1 || options.ceiling < options.floor) throw new RangeError('need 1 <= floor <= ceiling');
    this.floor = options.floor;
    this.ceiling = options.ceiling;
    this.#now = options.now ?? (() => performance.now());
    this.#limit = this.#clamp(options.initial ?? DEFAULT_INITIAL);
    this.#windowStart = this.#now();
  }

  /** Sends allowed in flight now. */
  get limit(): number {
    return Math.floor(this.#limit);
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** How many more sends may start. */
  available(): number {
    return Math.max(0, this.limit - this.#inFlight);
  }

  /** A send starts (the worker counts what it claimed, even beyond the limit). */
  acquire(): void {
    this.#inFlight++;
    if (this.#inFlight >= this.#limit / 2) this.#busyAt = this.#now();
  }

  /** A send ended without reaching the provider (refused before, or failed in our code): no sample. */
  release(): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
  }

  /** The provider's answer to one send, `latencyMs` after it started; call before release(). */
  observe(latencyMs: number, signal: SendSignal): void {
    const now = this.#now();
    // In use within the last two round trips (this answer's own included).
    const inUse = now - this.#busyAt <= 2 * Math.max(latencyMs, this.#smoothedMs ?? 0);
    if (signal === 'overloaded') {
      this.#cut(now, OVERLOAD_FACTOR);
      return;
    }
    this.#sample(now, latencyMs);
    const smoothed = this.#smoothedMs ?? latencyMs;
    if (smoothed > Math.max(this.#baselineMs * SLOW_RATIO, this.#baselineMs + SLOW_MARGIN_MS))
      this.#cut(now, SLOW_FACTOR);
    else if (inUse && this.#limit < Math.max(DEFAULT_INITIAL, TARGET_PER_MS * this.#baselineMs))
      this.#limit = this.#clamp(this.#limit + 1);
  }

  // At most one cut per round trip: a burst of 429s answers one excess, not many.
  #cut(now: number, factor: number): void {
    if (now - this.#lastCut < (this.#smoothedMs ?? 0)) return;
    this.#lastCut = now;
    this.#limit = this.#clamp(this.#limit * factor);
  }

  #sample(now: number, latencyMs: number): void {
    this.#smoothedMs =
      this.#smoothedMs === null ? latencyMs : this.#smoothedMs + SMOOTHING * (latencyMs - this.#smoothedMs);
    this.#windowMinMs = Math.min(this.#windowMinMs, latencyMs);
    this.#baselineMs = Math.min(this.#baselineMs, latencyMs);
    if (now - this.#windowStart >= BASELINE_WINDOW_MS) {
      this.#baselineMs = this.#windowMinMs;
      this.#windowMinMs = Number.POSITIVE_INFINITY;
      this.#windowStart = now;
    }
  }

  #clamp(value: number): number {
    return Math.min(this.ceiling, Math.max(this.floor, value));
  }
}
