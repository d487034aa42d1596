// bcrypt checks on worker threads (docs/security.md#speed): a check costs
// about 0.1 s of CPU at cost 10, and on the main thread a flood of made-up
// passwords held every other call and /healthz for seconds. Here each thread
// takes its checks one at a time, behind a queue of bounded length; when
// every queue is full a check is not made at all (the caller is told to come
// back) rather than queued without end.
//
// The worker is a short script evaluated from a string, so that it loads the
// same under ts-jest (TypeScript sources) and from dist/ (compiled): it
// requires bcryptjs by the path resolved here. Each thread lowers its own
// scheduling priority where the system allows it (Linux: a thread's nice
// value is its own), so that on a busy machine bcrypt waits behind the main
// thread and not the other way round. Idle threads do not keep the process
// alive; `close()` ends them (the shutdown sequence calls it).
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** Checks waiting or under way per thread; past it a new check is refused. */
export const DEFAULT_QUEUE_PER_THREAD = 8;
/** The nice value the threads ask for (19, the lowest priority). */
const WORKER_NICE = 19;

/** One thread per core but one, left to the main thread; at least one. */
export function defaultBcryptThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

export interface BcryptPool {
  /**
   * Whether `password` matches `hash`; null when every thread's queue is
   * full (or the pool is closed) and the check was not made. Rejects when
   * the thread died under it.
   */
  compare(password: string, hash: string): Promise<boolean> | null;
  /** Threads started so far (they start on the first checks). */
  readonly started: number;
  /** Ends the threads; checks under way reject, later ones get null. */
  close(): Promise<void>;
}

export interface BcryptPoolOptions {
  /** BCRYPT_THREADS; default: defaultBcryptThreads(). */
  readonly threads?: number;
  readonly queuePerThread?: number;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
try {
  const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  if (tid > 0) require('node:os').setPriority(tid, workerData.nice);
} catch {}
const bcrypt = require(workerData.bcryptjs);
parentPort.on('message', (m) => {
  let ok = false;
  try { ok = bcrypt.compareSync(m.password, m.hash); } catch {}
  parentPort.postMessage({ id: m.id, ok });
});
`;

interface Thread {
  readonly worker: Worker;
  readonly waiting: Map<number, { resolve: (ok: boolean) => void; reject: (err: Error) => void }>;
}

export function createBcryptPool(options: BcryptPoolOptions = {}): BcryptPool {
  const size = Math.max(1, Math.floor(options.threads ?? defaultBcryptThreads()));
  const queue = Math.max(1, Math.floor(options.queuePerThread ?? DEFAULT_QUEUE_PER_THREAD));
  const threads: Thread[] = [];
  let nextId = 0;
  let closed = false;

  const drop = (thread: Thread, err: Error) => {
    const index = threads.indexOf(thread);
    if (index >= 0) threads.splice(index, 1);
    for (const { reject } of thread.waiting.values()) reject(err);
    thread.waiting.clear();
  };

  const start = (): Thread => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { bcryptjs: require.resolve('bcryptjs'), nice: WORKER_NICE },
      // bcrypt needs a few kilobytes; a small heap bounds what a thread can hold.
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
      stdout: false,
      stderr: false,
    });
    const thread: Thread = { worker, waiting: new Map() };
    worker.unref();
    worker.on('message', (m: { id: number; ok: boolean }) => {
      const entry = thread.waiting.get(m.id);
      if (entry === undefined) return;
      thread.waiting.delete(m.id);
      // An idle thread does not keep the process alive.
      if (thread.waiting.size === 0) worker.unref();
      entry.resolve(m.ok === true);
    });
    worker.on('error', (err: Error) => drop(thread, err));
    worker.on('exit', (code) => drop(thread, new Error(`bcrypt thread exited (code ${code})`)));
    threads.push(thread);
    return thread;
  };

  const pick = (): Thread | null => {
    let best: Thread | null = null;
    for (const thread of threads) if (best === null || thread.waiting.size < best.waiting.size) best = thread;
    if (best !== null && best.waiting.size === 0) return best;
    if (threads.length < size) return start();
    return best !== null && best.waiting.size < queue ? best : null;
  };

  return {
    get started() {
      return threads.length;
    },
    compare(password, hash) {
      if (closed) return null;
      const thread = pick();
      if (thread === null) return null;
      const id = nextId++;
      return new Promise<boolean>((resolve, reject) => {
        if (thread.waiting.size === 0) thread.worker.ref();
        thread.waiting.set(id, { resolve, reject });
        thread.worker.postMessage({ id, password, hash });
      });
    },
    async close() {
      closed = true;
      const ending = [...threads];
      await Promise.all(ending.map((thread) => thread.worker.terminate()));
      for (const thread of ending) drop(thread, new Error('bcrypt pool closed'));
    },
  };
}
