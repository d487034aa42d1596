export { startTracing, TRACES_FLUSH_MS, type TracingOptions } from './start-tracing';
export type * from './tracer';
