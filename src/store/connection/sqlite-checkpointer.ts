// SQLite's WAL checkpoints, moved off the event loop (docs/design.md#storage).
// A checkpoint copies the write-ahead log back into the database file and
// syncs it; SQLite runs one on the committing connection whenever the log
// passes 1,000 pages (about 4 MiB), inside that commit, so on the service's
// single connection it held every other request for 15 to 40 ms, and for
// hundreds of milliseconds on a loaded machine (a 32 MiB roster upload
// passes it eight times: test/chaos/import-shapes.test.ts). Here the
// connection leaves them (`wal_autocheckpoint` raised far out of the way, as
// a bound if the thread ever stops) to a thread with a connection of its own
// to the same file, which runs a PASSIVE checkpoint every CHECKPOINT_EVERY_MS:
// it waits for no reader nor writer, and holds no lock that a writer needs.
// The thread is evaluated from a string, as the bcrypt pool's is, so that it
// loads the same under ts-jest and from dist/.
import { Worker } from 'node:worker_threads';

export const CHECKPOINT_EVERY_MS = 250;
/** What the connection itself still does past this many pages of log (about 64 MiB): a bound, not the rule. */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 16_000;
/** How long closing waits for the thread to close its connection (so the last one closing removes the log). */
const CLOSE_WAIT_MS = 2_000;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.betterSqlite3);
let db = null;
try {
  db = new Database(workerData.file, { fileMustExist: true });
  db.pragma('busy_timeout = 0');
} catch {}
const flag = new Int32Array(workerData.closed);
const timer = setInterval(() => {
  // Another connection checkpointing at the same time answers busy: the next tick tries again.
  try { if (db !== null) db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
}, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  try { if (db !== null) db.close(); } catch {}
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Stops the thread and waits (briefly, synchronously) until its connection is closed. */
  close(): void;
  /** Settles once the thread has exited (after close): nothing of it is left open. */
  readonly exited: Promise<void>;
}

/** Starts checkpointing `file` (opened in WAL mode by the caller) on a thread of its own. */
export function startCheckpointer(file: string, everyMs = CHECKPOINT_EVERY_MS): Checkpointer {
  const closed = new SharedArrayBuffer(4);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { betterSqlite3: require.resolve('better-sqlite3'), file, everyMs, closed },
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
    stdout: false,
    stderr: false,
  });
  // The thread never keeps the process alive; a failure to start only leaves checkpoints to the fallback.
  worker.unref();
  worker.on('error', () => undefined);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let done = false;
  return {
    exited,
    close() {
      if (done) return;
      done = true;
      const flag = new Int32Array(closed);
      // Whoever awaits `exited` now keeps the process alive until the thread has gone (a command's exit code
      // is set after the store has closed).
      worker.ref();
      worker.postMessage('close');
      // Closing the store is synchronous (Kysely's driver); once, at the end, a short wait is acceptable.
      // Its connection closed, the thread ends by itself (its timer cleared, its port closed); one that did
      // not answer in time is stopped.
      if (Atomics.wait(flag, 0, 0, CLOSE_WAIT_MS) === 'timed-out') void worker.terminate();
    },
  };
}
