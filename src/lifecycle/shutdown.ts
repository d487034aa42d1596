// Graceful shutdown: stop accepting connections, let the requests in flight
// finish, then close what was registered (the delivery worker, which finishes
// its current batch; the store, last), all within one deadline. Readiness
// fails from the first moment so that a load balancer stops sending traffic.
import type { Server } from 'node:http';
import type { Logger } from '../log';

export interface ShutdownOptions {
  readonly logger: Logger;
  /** The whole sequence's budget; what is still running after it is cut off. */
  readonly timeoutMs: number;
}

export interface ShutdownReport {
  /** False when something had to be cut off or failed to close. */
  readonly clean: boolean;
}

export interface Shutdown {
  /** Stops accepting at once on shutdown, and its requests in flight are awaited. */
  addServer(server: Server): void;
  /**
   * Runs after the servers drained, in reverse order of registration: register
   * the store first and the worker after it, and the worker stops before the
   * store closes. `close` is told how long it has before it is cut off, for
   * a step that can give up cleanly sooner (the traces' last export).
   */
  register(name: string, close: (budgetMs: number) => Promise<void> | void): void;
  /** True from the moment shutdown began. */
  readonly draining: boolean;
  /** Runs the sequence once; later calls get the same result. */
  run(reason: string): Promise<ShutdownReport>;
}

// How often idle keep-alive connections are closed while draining: a
// connection becomes idle when its last request is answered.
const IDLE_SWEEP_MS = 50;
// Even past the deadline each closer gets this long: closing the store
// cleanly is worth a moment more than being cut off.
const CLOSER_FLOOR_MS = 1000;

export function createShutdown(options: ShutdownOptions): Shutdown {
  const servers: Server[] = [];
  const closers: { name: string; close: (budgetMs: number) => Promise<void> | void }[] = [];
  let running: Promise<ShutdownReport> | null = null;

  const sequence = async (reason: string): Promise<ShutdownReport> => {
    const { logger } = options;
    const deadline = Date.now() + options.timeoutMs;
    logger.info(
      { reason, timeoutMs: options.timeoutMs },
      'shutting down: no new connections; finishing requests in flight',
    );
    let clean = await drain(servers, deadline, logger);
    for (const { name, close } of [...closers].reverse()) {
      const budgetMs = Math.max(CLOSER_FLOOR_MS, deadline - Date.now());
      const outcome = await withTimeout(
        Promise.resolve().then(() => close(budgetMs)),
        budgetMs,
      );
      if (outcome === 'done') continue;
      clean = false;
      if (outcome === 'timeout') logger.warn({ step: name }, 'shutdown: step did not finish in time; going on');
      else logger.error({ step: name, err: outcome.error }, 'shutdown: step failed; going on');
    }
    logger.info({ clean }, 'shutdown complete');
    return { clean };
  };

  return {
    addServer(server) {
      servers.push(server);
    },
    register(name, close) {
      closers.push({ name, close });
    },
    get draining() {
      return running !== null;
    },
    run(reason) {
      running ??= sequence(reason);
      return running;
    },
  };
}

async function drain(servers: readonly Server[], deadline: number, logger: Logger): Promise<boolean> {
  const closed = servers.map(
    (server) =>
      new Promise<void>((resolve) => {
        if (!server.listening) {
          resolve();
          return;
        }
        server.close(() => resolve());
      }),
  );
  const sweep = setInterval(() => servers.forEach((server) => server.closeIdleConnections()), IDLE_SWEEP_MS);
  servers.forEach((server) => server.closeIdleConnections());
  try {
    const outcome = await withTimeout(Promise.all(closed), deadline - Date.now());
    if (outcome === 'done') return true;
    logger.warn('shutdown: requests still in flight at the deadline; closing their connections');
    servers.forEach((server) => server.closeAllConnections());
    return false;
  } finally {
    clearInterval(sweep);
  }
}

type StepOutcome = 'done' | 'timeout' | { readonly error: unknown };

async function withTimeout(work: Promise<unknown>, ms: number): Promise<StepOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<StepOutcome>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), Math.max(0, ms));
  });
  try {
    return await Promise.race([
      work.then(
        (): StepOutcome => 'done',
        (error: unknown): StepOutcome => ({ error }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
