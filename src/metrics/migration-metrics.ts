// The shadow calls' comparisons and the request recording's lines
// (docs/migration.md#shadow): fed by src/observe after each answer.
import { Counter, type Registry } from 'prom-client';
import { boundedCode, childCache } from './labels';

/** `same_bytes`, `same_xml`, `explained`, `differs`, `error`, `dropped`. */
export type ShadowOutcome = 'same_bytes' | 'same_xml' | 'explained' | 'differs' | 'error' | 'dropped';

export interface ShadowMetrics {
  compared(operation: string, binding: string, outcome: ShadowOutcome): void;
}

/** `written`, `dropped` (the writer was behind), `full` (RECORD_REQUESTS_MAX_BYTES reached). */
export type RecordingResult = 'written' | 'dropped' | 'full';

export interface RecordingMetrics {
  recorded(result: RecordingResult): void;
}

export function createShadowMetrics(registry: Registry): ShadowMetrics {
  const comparisons = new Counter({
    name: 'notify_shadow_comparisons_total',
    help: 'Read calls also sent to the legacy service (SHADOW_URL), by operation, binding and outcome: same_bytes, same_xml, explained (by SHADOW_IGNORE), differs, error (the legacy did not answer), dropped (over SHADOW_CONCURRENCY or SHADOW_MAX_PER_SECOND, or too large).',
    labelNames: ['operation', 'binding', 'outcome'] as const,
    registers: [registry],
  });
  // Operation and binding come from the contract, but stay bounded whatever the wire noted.
  const label = boundedCode(50);
  const child = childCache((v) => comparisons.labels(v[0] ?? '', v[1] ?? '', v[2] ?? ''));
  return {
    compared(operation, binding, outcome) {
      child(label(operation), label(binding), outcome).inc();
    },
  };
}

export function createRecordingMetrics(registry: Registry): RecordingMetrics {
  const lines = new Counter({
    name: 'notify_recorded_requests_total',
    help: 'Read calls seen by the request recording (RECORD_REQUESTS), by result: written, dropped (the writer was behind), full (RECORD_REQUESTS_MAX_BYTES reached).',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const children = { written: lines.labels('written'), dropped: lines.labels('dropped'), full: lines.labels('full') };
  return {
    recorded(result) {
      children[result].inc();
    },
  };
}
