// The operations' time limit, kept by one timer for all the calls under way
// instead of a timer per call (docs/design.md#bookkeeping-on-the-request-path).
//
// Every call has the same limit, so the calls' deadlines fall in the order
// the calls started: they wait in a queue in that order, and one timer is
// set for the earliest deadline still pending. A call that finishes is only
// marked done (a timer made and cancelled per call cost a Timeout object, an
// insertion into Node's timer list and its removal, docs/benchmark.md#request-path);
// the marked calls are dropped as new calls join the queue, from the front
// at once, from behind a slow call once they outnumber the calls under way,
// so the queue holds at most about twice the calls under way. When the timer fires it
// expires every call whose deadline has come, and sets itself for the next.
// The timer is not cleared when the last call under way finishes: calls
// that run one after another (the usual case, as the store answers within
// the same turn) would otherwise set and clear it for every call, which
// costs more than a timer per call; it fires once, finds nothing due, and
// is not set again until a call starts. It does not hold the process open:
// a call under way has its connection for that.
import { performance } from 'node:perf_hooks';

/** One call's place in the queue: `finish` it when the work settles, before the deadline or after. */
export interface Deadline {
  /** False when the deadline had already expired the call; true the first time otherwise. */
  finish(): boolean;
}

interface Entry extends Deadline {
  readonly at: number;
  readonly expire: () => void;
  done: boolean;
}

export interface Deadlines {
  /** Starts a call's deadline: `expire` runs once, `timeoutMs` from now, unless the call is finished first. */
  start(expire: () => void): Deadline;
  /** Calls under way (tests). */
  readonly pending: number;
  /** Entries held in the queue, finished ones not yet dropped among them (tests). */
  readonly queued: number;
}

/** Past this many finished entries at the front, the queue is cut down (an array's shift is O(n)). */
const COMPACT_AT = 1024;

export function createDeadlines(timeoutMs: number): Deadlines {
  let queue: Entry[] = [];
  let head = 0;
  let pending = 0;
  let timer: NodeJS.Timeout | null = null;
  let timerAt = Infinity;

  const dropFinished = () => {
    while (head < queue.length && queue[head].done) head++;
    const held = queue.length - head;
    if (held === 0) {
      queue.length = 0;
      head = 0;
    } else if (held >= 2 * pending + COMPACT_AT) {
      // Mostly finished calls held behind a slow one at the front: kept are the calls under way.
      queue = queue.slice(head).filter((entry) => !entry.done);
      head = 0;
    } else if (head >= COMPACT_AT && head * 2 >= queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
  };

  const arm = (at: number) => {
    timerAt = at;
    // Node's timers count whole milliseconds; a timer that fires a fraction early sets itself again.
    timer = setTimeout(fire, Math.max(1, Math.ceil(at - performance.now())));
    timer.unref();
  };

  const fire = () => {
    timer = null;
    timerAt = Infinity;
    const now = performance.now();
    const expired: Entry[] = [];
    while (head < queue.length) {
      const entry = queue[head];
      if (!entry.done) {
        if (entry.at > now) break;
        entry.done = true;
        pending--;
        expired.push(entry);
      }
      head++;
    }
    dropFinished();
    if (pending > 0) arm(queue[head].at);
    // After the queue is in order again: an expiry that starts another call finds it so.
    for (const entry of expired) entry.expire();
  };

  function finish(this: Entry): boolean {
    if (this.done) return false;
    this.done = true;
    pending--;
    if (pending === 0) {
      queue.length = 0;
      head = 0;
    }
    return true;
  }

  return {
    start(expire) {
      dropFinished();
      const entry: Entry = { at: performance.now() + timeoutMs, expire, done: false, finish };
      queue.push(entry);
      pending++;
      // The earliest deadline is the front's; the timer is set for it unless it already is.
      if (timer === null || timerAt > queue[head].at) {
        if (timer !== null) clearTimeout(timer);
        arm(queue[head].at);
      }
      return entry;
    },
    get pending() {
      return pending;
    },
    get queued() {
      return queue.length - head;
    },
  };
}
