import type { Logger } from '../log';
import type { Tracer } from './tracer';

/** What the last export of the spans may take of a stop, at most (the server's and the worker's). */
export const TRACES_FLUSH_MS = 5000;

export interface TracingOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL; spans go to `<endpoint>/v1/traces`. */
  readonly endpoint: string;
  /** OTEL_SERVICE_NAME; null: the package's name. */
  readonly serviceName: string | null;
  /** The resource's `service.version`; left out, the release's. */
  readonly serviceVersion?: string;
  /** Where a collector's failures to take spans are reported. */
  readonly logger: Logger;
}

/**
 * Loads OpenTelemetry and starts exporting. The import is here, behind the
 * setting, so that a service without OTEL_EXPORTER_OTLP_ENDPOINT never loads
 * the SDK (test/ops/traces.test.ts, "without OTEL_EXPORTER_OTLP_ENDPOINT", checks it).
 */
export async function startTracing(options: TracingOptions): Promise<Tracer> {
  const { createOtelTracer } = await import('./otel-tracer');
  return createOtelTracer(options);
}
