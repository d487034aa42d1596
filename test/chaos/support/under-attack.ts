// What a flood suite measures of the service beside the attack: how long
// `/healthz` takes while it runs (on a new connection each time, as a load
// balancer's check comes), and the process's resident memory before and after.
// Each flood file prints these figures (docs/chaos.md) and fails only past a
// generous bound, so that a busy machine does not fail it.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';

export interface ProbeFigures {
  /** Tries made. */
  readonly tries: number;
  /** Tries that did not get a 200 within the timeout (status, error or time-out). */
  readonly failures: number;
  /** Milliseconds of the tries that answered 200, sorted. */
  readonly latencies: readonly number[];
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** The distinct ways tries failed ("503", "timeout", "ECONNRESET"), with counts. */
  readonly failedAs: Readonly<Record<string, number>>;
}

export interface HealthProbe {
  /** Stops probing once the try under way ends, and gives the figures. */
  stop(): Promise<ProbeFigures>;
}

/** Asks `GET /healthz` (or `path`, with `headers`) one try at a time, `intervalMs` apart, each on a new connection. */
export function probeHealth(
  port: number,
  options: { intervalMs?: number; timeoutMs?: number; path?: string; headers?: Record<string, string> } = {},
): HealthProbe {
  const intervalMs = options.intervalMs ?? 50;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const latencies: number[] = [];
  const failedAs: Record<string, number> = {};
  let tries = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      tries++;
      const outcome = await timedGet(port, options.path ?? '/healthz', timeoutMs, options.headers);
      if (outcome.ok) latencies.push(outcome.ms);
      else failedAs[outcome.failure] = (failedAs[outcome.failure] ?? 0) + 1;
      if (running) await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const sorted = [...latencies].sort((a, b) => a - b);
      const failures = Object.values(failedAs).reduce((a, b) => a + b, 0);
      return {
        tries,
        failures,
        latencies: sorted,
        p50: quantile(sorted, 0.5),
        p99: quantile(sorted, 0.99),
        max: sorted.at(-1) ?? NaN,
        failedAs,
      };
    },
  };
}

type GetOutcome = { ok: true; status: 200; ms: number } | { ok: false; status: number; ms: number; failure: string };

/** One GET on its own connection: its status and time, or how it failed. */
export function timedGet(
  port: number,
  path: string,
  timeoutMs: number,
  headers: Record<string, string> = {},
): Promise<GetOutcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    let done = false;
    const finish = (outcome: GetOutcome) => {
      if (done) return;
      done = true;
      resolve(outcome);
    };
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', agent: false, headers }, (res) => {
      res.resume();
      res.on('end', () => {
        const ms = performance.now() - started;
        finish(
          res.statusCode === 200
            ? { ok: true, status: 200, ms }
            : { ok: false, status: res.statusCode ?? 0, ms, failure: String(res.statusCode) },
        );
      });
      res.on('error', (err: NodeJS.ErrnoException) =>
        finish({ ok: false, status: 0, ms: performance.now() - started, failure: err.code ?? err.message }),
      );
    });
    req.setTimeout(timeoutMs, () => {
      finish({ ok: false, status: 0, ms: performance.now() - started, failure: 'timeout' });
      req.destroy();
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      finish({ ok: false, status: 0, ms: performance.now() - started, failure: err.code ?? err.message }),
    );
    req.end();
  });
}

/** The `q` quantile of sorted values (nearest rank); NaN when there are none. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** A process's resident memory in MB, from /proc (Linux). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (kb === null) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kb[1]) / 1024;
}

/** One line a flood suite prints: what ran, /healthz during it, and the memory before and after. */
export function floodLine(
  name: string,
  attack: string,
  health: ProbeFigures,
  rssBefore: number,
  rssAfter: number,
): string {
  const failed =
    health.failures === 0
      ? 'none failed'
      : `${health.failures} failed (${Object.entries(health.failedAs)
          .map(([k, n]) => `${k}: ${n}`)
          .join(', ')})`;
  return (
    `${name}: ${attack}; /healthz during it: ${health.tries} tries, p50 ${health.p50.toFixed(1)} ms, p99 ${health.p99.toFixed(1)} ms, ` +
    `max ${health.max.toFixed(1)} ms, ${failed}; RSS ${rssBefore.toFixed(0)} MB before, ${rssAfter.toFixed(0)} MB after\n`
  );
}

/**
 * A fixed piece of CPU work (hashing, JSON), timed at the start, best of three: 272 ms in this test's process
 * while the host ran 2.7 times slower than usual, so about 100 ms at its usual speed.
 */
const CALIBRATION_USUAL_MS = 100;

/** How much slower than usual the host runs now: the calibration's best of three over its usual time, at least 1. */
export function hostSlowness(): number {
  const block = Buffer.alloc(1 << 20, 7);
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 3; round += 1) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < 64; i += 1) createHash('sha256').update(block).digest();
    JSON.parse(JSON.stringify(Array.from({ length: 200_000 }, (_, id) => ({ id, name: `n${id}` }))));
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e6);
  }
  return Math.max(1, best / CALIBRATION_USUAL_MS);
}
