// Requests by endpoint, operation, binding and outcome; their latency; and
// faults by code. Fed once per request by the request observer.
//
// The requests and their latencies are noted in plain numbers on the request
// path and handed to prom-client when the metrics are read (each metric's
// `collect`, which runs on every scrape and every read of the registry), or
// when a series has gathered PENDING_MAX latencies: prom-client checks and
// hashes the labels on every `inc` and `observe`, even of a labelled child
// (docs/benchmark.md#request-path). A scrape sees every request answered
// before it, as before.
import { Counter, Histogram, type Registry } from 'prom-client';
import { boundedCode, childCache } from './labels';

export interface RequestObservation {
  /** Contract endpoint name, or `admin`, `metrics`, `health`, `none`. */
  readonly endpoint: string;
  /** Wire name of the operation, the admin route's id, or `none`. */
  readonly operation: string;
  /** `soap11`, `soap12`, `http_get`, `http_post`, `document`, or `none`. */
  readonly binding: string;
  readonly outcome: 'ok' | 'client_fault' | 'server_fault';
  /** Why it failed (bounded code), or null when it did not. */
  readonly fault: string | null;
  readonly seconds: number;
}

export interface RequestMetrics {
  observe(request: RequestObservation): void;
}

// Seconds; the hot reads answer in about a millisecond, a list of thousands
// of students in tens, and OPERATION_TIMEOUT_MS caps the tail.
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Latencies a series holds before it hands them over between scrapes: a bound on its memory. */
const PENDING_MAX = 1024;

export function createRequestMetrics(registry: Registry): RequestMetrics {
  // Every series made so far, for the hand-over (flush).
  const all: Series[] = [];
  const flush = () => {
    for (const s of all) {
      for (const tally of s.outcomes.values()) {
        if (tally.count === 0) continue;
        tally.counter.inc(tally.count);
        tally.count = 0;
      }
      handOver(s);
    }
  };
  const requests = new Counter({
    name: 'notify_requests_total',
    help: 'Requests answered, by endpoint, operation, binding and outcome (ok, client_fault, server_fault).',
    labelNames: ['endpoint', 'operation', 'binding', 'outcome'] as const,
    registers: [registry],
    collect: flush,
  });
  const duration = new Histogram({
    name: 'notify_request_duration_seconds',
    help: 'Time from the request arriving to the answer being written, by endpoint, operation and binding.',
    labelNames: ['endpoint', 'operation', 'binding'] as const,
    buckets: BUCKETS,
    registers: [registry],
    collect: flush,
  });
  const faults = new Counter({
    name: 'notify_faults_total',
    help: 'Requests that failed, by endpoint, operation, binding and fault code (the operation error code, store_unavailable, timeout, http_<status>, ...).',
    labelNames: ['endpoint', 'operation', 'binding', 'code'] as const,
    registers: [registry],
  });

  // One lookup chain per request, without building a key: endpoint →
  // operation → binding, then the outcome.
  interface Tally {
    readonly counter: { inc(value: number): void };
    /** Requests not yet handed to the counter. */
    count: number;
  }
  interface Series {
    readonly duration: { observe(seconds: number): void };
    readonly outcomes: Map<string, Tally>;
    /** Latencies not yet handed to the histogram. */
    readonly pending: number[];
  }
  const handOver = (s: Series) => {
    for (const seconds of s.pending) s.duration.observe(seconds);
    s.pending.length = 0;
  };
  const series = new Map<string, Map<string, Map<string, Series>>>();
  const seriesOf = (endpoint: string, operation: string, binding: string): Series => {
    let byOperation = series.get(endpoint);
    if (byOperation === undefined) series.set(endpoint, (byOperation = new Map<string, Map<string, Series>>()));
    let byBinding = byOperation.get(operation);
    if (byBinding === undefined) byOperation.set(operation, (byBinding = new Map<string, Series>()));
    let found = byBinding.get(binding);
    if (found === undefined) {
      found = { duration: duration.labels(endpoint, operation, binding), outcomes: new Map(), pending: [] };
      byBinding.set(binding, found);
      all.push(found);
    }
    return found;
  };
  const faultChild = childCache((v) => faults.labels(v[0] ?? '', v[1] ?? '', v[2] ?? '', v[3] ?? ''));
  const faultCode = boundedCode(100);

  return {
    observe(r) {
      const s = seriesOf(r.endpoint, r.operation, r.binding);
      let tally = s.outcomes.get(r.outcome);
      if (tally === undefined)
        s.outcomes.set(
          r.outcome,
          (tally = { counter: requests.labels(r.endpoint, r.operation, r.binding, r.outcome), count: 0 }),
        );
      tally.count++;
      // A latency that is not a number would have thrown in prom-client's observe; it is not kept either.
      if (Number.isFinite(r.seconds)) {
        s.pending.push(r.seconds);
        if (s.pending.length >= PENDING_MAX) handOver(s);
      }
      if (r.fault !== null) faultChild(r.endpoint, r.operation, r.binding, faultCode(r.fault)).inc();
    },
  };
}
