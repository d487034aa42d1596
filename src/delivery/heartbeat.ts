// The delivery worker's heartbeat in the store (docs/console.md#overview):
// every HEARTBEAT_MS while its loop runs, the worker writes its row, and it
// deletes it when it stops, so that the console can tell "no worker" from
// "a worker with nothing to do", whichever process the workers run in.
// A failed beat is logged and tried again at the next: the row only informs.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log';

export const HEARTBEAT_MS = 15_000;

export interface HeartbeatStore {
  workerHeartbeat(id: string, startedAt: string): Promise<void>;
  workerStopped(id: string): Promise<void>;
}

/** `host/pid/random`: which machine and process, and unique across restarts. */
export function workerId(): string {
  return `${hostname().slice(0, 64)}/${process.pid}/${randomUUID().slice(0, 8)}`;
}

export function startHeartbeat(
  store: HeartbeatStore,
  alive: () => boolean,
  logger: Logger,
  now: () => Date,
  intervalMs = HEARTBEAT_MS,
): () => Promise<void> {
  const id = workerId();
  const startedAt = now().toISOString();
  let failing = false;
  let beating: Promise<void> = Promise.resolve();
  const beat = () => {
    if (!alive()) return;
    beating = store.workerHeartbeat(id, startedAt).then(
      () => {
        failing = false;
      },
      (err: unknown) => {
        // Once per outage, not every beat.
        if (!failing) logger.warn({ err }, 'delivery worker: heartbeat not written; trying again');
        failing = true;
      },
    );
  };
  beat();
  const timer = setInterval(beat, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await beating;
    await store.workerStopped(id).catch(() => undefined);
  };
}
