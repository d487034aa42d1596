// The part of autocannon 9's API the benchmarks use (the package ships no
// types): one load against one URL, and what its result reports.
declare module 'autocannon' {
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    /** A number of requests instead of a duration. */
    amount?: number;
    /** The sampling interval, ms. */
    sampleInt?: number;
    /** Requests a second over all connections. */
    overallRate?: number;
    /** Seconds a request may take before it counts as an error (10 by default). */
    timeout?: number;
    /** The requests each connection sends in turn; setupRequest makes each one afresh from the defaults above. */
    requests?: Array<{ setupRequest?: (request: Request) => Request }>;
  }

  /** One request as setupRequest sees and returns it. */
  interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }

  interface Histogram {
    average: number;
    total: number;
    p50: number;
    p99: number;
  }

  interface Result {
    /** `average` is per sample (a second, or sampleInt). */
    requests: Histogram;
    latency: Histogram;
    errors: number;
    non2xx: number;
  }

  function autocannon(options: Options, done: (error: Error | null, result: Result) => void): unknown;
  namespace autocannon {
    export type { Options, Request, Result };
  }
  export = autocannon;
}
