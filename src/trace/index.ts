export { startTracing, TRACES_FLUSH_MS, type TracingOptions } from './start-tracing';
export type {
  DeliverySpan,
  DeliveryStart,
  OutboxChannel,
  QueueSpan,
  RequestEnd,
  RequestSpan,
  RequestStart,
  StatementStart,
  Tracer,
} from './tracer';
