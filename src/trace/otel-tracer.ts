// The Tracer over OpenTelemetry's SDK. Loaded only when tracing is on
// (start-tracing.ts imports this file lazily), so every OpenTelemetry package
// stays out of a service that does not trace.
//
// Deliberately nothing global: the context manager, the propagator and the
// provider are this tracer's own, so a second service in one process (the
// tests) or another library registering a global provider cannot mix with it.
// The span names and attributes are documented in docs/operating.md#traces.
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, parseTraceParent, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import {
  ATTR_DB_COLLECTION_NAME,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
  ATTR_URL_PATH,
} from '@opentelemetry/semantic-conventions';
import type { Logger } from '../log';
import { OUTBOX_TABLE } from '../shared/outbox-channel';
import { SERVICE_NAME, SERVICE_VERSION } from '../shared/version';
import type { TracingOptions } from './start-tracing';
import type {
  DeliverySpan,
  DeliveryStart,
  QueueSpan,
  RequestEnd,
  RequestSpan,
  RequestStart,
  StatementStart,
  Tracer,
} from './tracer';

// The messaging conventions are still "incubating", which the package asks
// users to copy rather than import: the outbox is a queue, so its spans say so.
const ATTR_MESSAGING_SYSTEM = 'messaging.system';
const ATTR_MESSAGING_OPERATION_TYPE = 'messaging.operation.type';
const ATTR_MESSAGING_DESTINATION_NAME = 'messaging.destination.name';
const ATTR_MESSAGING_MESSAGE_ID = 'messaging.message.id';
const MESSAGING_SYSTEM = 'sns_outbox';

// Our own, documented in docs/operating.md#traces.
const ATTR_ENDPOINT = 'sns.endpoint';
const ATTR_BINDING = 'sns.binding';
const ATTR_OPERATION = 'sns.operation';
const ATTR_OUTCOME = 'sns.outcome';
const ATTR_FAULT = 'sns.fault';
const ATTR_REQUEST_ID = 'sns.request_id';
const ATTR_OUTBOX_CHANNEL = 'sns.outbox.channel';
const ATTR_OUTBOX_REFUSED_BY = 'sns.outbox.refused_by';
const ATTR_DELIVERY_PROVIDER = 'sns.delivery.provider';
const ATTR_DELIVERY_ATTEMPT = 'sns.delivery.attempt';
const ATTR_DELIVERY_OUTCOME = 'sns.delivery.outcome';
const ATTR_DELIVERY_ERROR = 'sns.delivery.error_code';

// The exporter's bounds: a collector that is slow or gone costs at most this
// many spans of memory (beyond it new spans are dropped, never queued), and
// one export waits at most this long before the batch is given up.
const MAX_QUEUE_SIZE = 2048;
const MAX_EXPORT_BATCH_SIZE = 512;
const SCHEDULED_DELAY_MS = 2000;
const EXPORT_TIMEOUT_MS = 10_000;
// A statement's text can be long (a bulk insert's placeholders); the rest is cut.
const ATTRIBUTE_VALUE_MAX = 2048;
// A collector that is down would otherwise fill the log at every batch.
const EXPORT_FAILURE_LOG_EVERY_MS = 60_000;

// The statement's verb, and the table it writes (or reads): the query
// builder quotes every identifier, which tells a table from `for update`.
const VERB = /^\s*(\w+)/;
const WRITES = /\b(insert\s+into|update|delete\s+from)\s+"(\w+)"/i;
const READS = /\bfrom\s+"(\w+)"/i;

export function createOtelTracer(options: TracingOptions): Tracer {
  const exporter = reportingFailures(
    new OTLPTraceExporter({
      url: `${options.endpoint.replace(/\/+$/, '')}/v1/traces`,
      timeoutMillis: EXPORT_TIMEOUT_MS,
    }),
    options.logger,
  );
  const serviceName = options.serviceName ?? SERVICE_NAME;
  const serviceVersion = options.serviceVersion ?? SERVICE_VERSION;
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName, [ATTR_SERVICE_VERSION]: serviceVersion }),
    spanLimits: { attributeValueLengthLimit: ATTRIBUTE_VALUE_MAX },
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        maxQueueSize: MAX_QUEUE_SIZE,
        maxExportBatchSize: MAX_EXPORT_BATCH_SIZE,
        scheduledDelayMillis: SCHEDULED_DELAY_MS,
        exportTimeoutMillis: EXPORT_TIMEOUT_MS,
      }),
    ],
  });
  const tracer = provider.getTracer(serviceName, serviceVersion);
  const contexts = new AsyncLocalStorageContextManager().enable();
  const propagator = new W3CTraceContextPropagator();
  let stopping: Promise<void> | null = null;

  const within = <T>(span: Span, parent: Context, work: () => T): T => contexts.with(trace.setSpan(parent, span), work);

  /** `work`'s promise, with a rejection marking `span` failed; the span ends either way. */
  const settle = async <T>(span: Span, work: Promise<T>): Promise<T> => {
    try {
      return await work;
    } catch (error) {
      fail(span, errorType(error));
      throw error;
    } finally {
      span.end();
    }
  };

  return {
    request<T>(start: RequestStart, work: (span: RequestSpan) => T): T {
      const carrier = { traceparent: start.traceparent, tracestate: start.tracestate };
      const parent = start.traceparent === undefined ? ROOT_CONTEXT : propagator.extract(ROOT_CONTEXT, carrier, GETTER);
      const span = tracer.startSpan(
        start.method,
        {
          kind: SpanKind.SERVER,
          attributes: { [ATTR_HTTP_REQUEST_METHOD]: start.method, [ATTR_URL_PATH]: start.path },
        },
        parent,
      );
      const handle: RequestSpan = {
        end(request: RequestEnd) {
          const route = routeOf(request);
          if (route !== null) span.updateName(`${start.method} ${route}`);
          const attributes: Attributes = { [ATTR_REQUEST_ID]: request.requestId, [ATTR_OUTCOME]: request.outcome };
          if (request.statusCode !== 0) attributes[ATTR_HTTP_RESPONSE_STATUS_CODE] = request.statusCode;
          if (route !== null) attributes[ATTR_HTTP_ROUTE] = route;
          // The concrete path names a record there (docs/operating.md#logs).
          if (request.route !== null) attributes[ATTR_URL_PATH] = request.route;
          if (request.endpoint !== null) attributes[ATTR_ENDPOINT] = request.endpoint;
          if (request.binding !== null) attributes[ATTR_BINDING] = request.binding;
          if (request.operation !== null) attributes[ATTR_OPERATION] = request.operation;
          if (request.fault !== null) attributes[ATTR_FAULT] = request.fault;
          span.setAttributes(attributes);
          // Our failures only: a caller's mistake (a SOAP client fault answers 500 too) is not the service's error.
          if (request.outcome === 'server_fault') fail(span, request.fault ?? 'server_fault');
          span.end();
        },
      };
      if (start.emitter !== undefined) contexts.bind(trace.setSpan(parent, span), start.emitter);
      return within(span, parent, () => work(handle));
    },

    statement(start: StatementStart, work) {
      const parent = contexts.active();
      const current = trace.getSpan(parent);
      // Only inside traced work: the worker's polls and the timers' statements would each start a trace of their own.
      if (current === undefined || !current.isRecording()) return work();
      const { operation, target } = describeStatement(start.text);
      const attributes: Attributes = {
        [ATTR_DB_SYSTEM_NAME]: start.system,
        [ATTR_DB_OPERATION_NAME]: operation,
        [ATTR_DB_QUERY_TEXT]: start.text,
      };
      if (target !== undefined) attributes[ATTR_DB_COLLECTION_NAME] = target;
      const span = tracer.startSpan(
        target === undefined ? operation : `${operation} ${target}`,
        { kind: SpanKind.CLIENT, attributes },
        parent,
      );
      return settle(
        span,
        within(span, parent, () => work()),
      );
    },

    enqueue(channel, work) {
      const parent = contexts.active();
      const span = tracer.startSpan(
        `send ${OUTBOX_TABLE[channel]}`,
        {
          kind: SpanKind.PRODUCER,
          attributes: {
            [ATTR_MESSAGING_SYSTEM]: MESSAGING_SYSTEM,
            [ATTR_MESSAGING_OPERATION_TYPE]: 'send',
            [ATTR_MESSAGING_DESTINATION_NAME]: OUTBOX_TABLE[channel],
            [ATTR_OUTBOX_CHANNEL]: channel,
          },
        },
        parent,
      );
      const carrier: Record<string, string> = {};
      propagator.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, SETTER);
      const handle: QueueSpan = {
        traceparent: carrier.traceparent ?? null,
        queued(messageId) {
          span.setAttribute(ATTR_MESSAGING_MESSAGE_ID, messageId);
        },
        refused(limit) {
          span.setAttribute(ATTR_OUTBOX_REFUSED_BY, limit);
        },
      };
      return settle(
        span,
        within(span, parent, () => work(handle)),
      );
    },

    delivery(start: DeliveryStart, work) {
      // A link, not a parent: the call that queued the message ended long
      // ago, retries come minutes or hours later, and each would otherwise
      // grow a trace that never closes (docs/operating.md#traces).
      const queuedBy = start.traceparent === null ? null : parseTraceParent(start.traceparent);
      const span = tracer.startSpan(
        `process ${OUTBOX_TABLE[start.channel]}`,
        {
          kind: SpanKind.CONSUMER,
          root: true,
          links: queuedBy === null ? [] : [{ context: queuedBy }],
          attributes: {
            [ATTR_MESSAGING_SYSTEM]: MESSAGING_SYSTEM,
            [ATTR_MESSAGING_OPERATION_TYPE]: 'process',
            [ATTR_MESSAGING_DESTINATION_NAME]: OUTBOX_TABLE[start.channel],
            [ATTR_MESSAGING_MESSAGE_ID]: start.messageId,
            [ATTR_OUTBOX_CHANNEL]: start.channel,
            [ATTR_DELIVERY_PROVIDER]: start.provider,
            [ATTR_DELIVERY_ATTEMPT]: start.attempt,
          },
        },
        ROOT_CONTEXT,
      );
      const handle: DeliverySpan = {
        finished(outcome, errorCode) {
          span.setAttribute(ATTR_DELIVERY_OUTCOME, outcome);
          if (errorCode !== null) span.setAttribute(ATTR_DELIVERY_ERROR, errorCode);
          if (outcome === 'dead' || outcome === 'uncertain') fail(span, errorCode ?? outcome);
        },
      };
      return settle(
        span,
        within(span, ROOT_CONTEXT, () => work(handle)),
      );
    },

    shutdown(timeoutMs) {
      stopping ??= (async () => {
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        });
        // A collector that does not answer must not hold up the exit: what is not exported by then is lost.
        await Promise.race([provider.shutdown().catch(() => undefined), deadline]);
        clearTimeout(timer);
        contexts.disable();
      })();
      return stopping;
    },
  };
}

const GETTER = {
  keys: (carrier: Record<string, string | undefined>) => Object.keys(carrier),
  get: (carrier: Record<string, string | undefined>, key: string) => carrier[key],
};

const SETTER = {
  set: (carrier: Record<string, string>, key: string, value: string) => {
    carrier[key] = value;
  },
};

/** `WITH … INSERT INTO "t"` is named for its insert, as a reader of the trace would. */
function describeStatement(text: string): { operation: string; target: string | undefined } {
  const verb = VERB.exec(text)?.[1]?.toUpperCase() ?? 'SQL';
  if (verb === 'SELECT') return { operation: verb, target: READS.exec(text)?.[1] };
  if (verb !== 'INSERT' && verb !== 'UPDATE' && verb !== 'DELETE' && verb !== 'WITH')
    return { operation: verb, target: undefined };
  const writes = WRITES.exec(text);
  if (writes === null) return { operation: verb, target: verb === 'WITH' ? READS.exec(text)?.[1] : undefined };
  return { operation: /^\w+/.exec(writes[1])?.[0].toUpperCase() ?? verb, target: writes[2] };
}

function routeOf(request: RequestEnd): string | null {
  if (request.route !== null) return request.route;
  if (request.endpoint === null) return null;
  const endpoint = `/${request.endpoint}.asmx`;
  if ((request.binding === 'http_get' || request.binding === 'http_post') && request.operation !== null)
    return `${endpoint}/${request.operation}`;
  return endpoint;
}

function fail(span: Span, type: string): void {
  span.setAttribute(ATTR_ERROR_TYPE, type);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

// A code, never the message: a driver's message can quote the values it was given.
function errorType(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'unknown';
  const { kind, code, name } = error as { kind?: unknown; code?: unknown; name?: unknown };
  if (typeof kind === 'string') return kind;
  if (typeof code === 'string' && /^\w{1,32}$/.test(code)) return code;
  return typeof name === 'string' ? name : 'Error';
}

/** The exporter, with its failures in the log (at most one line a minute), which OpenTelemetry would keep to its own silent diagnostics. */
function reportingFailures(exporter: SpanExporter, logger: Logger): SpanExporter {
  let failures = 0;
  let lastLogged = 0;
  return {
    export(spans: ReadableSpan[], done) {
      exporter.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) {
          failures++;
          const now = Date.now();
          if (now - lastLogged >= EXPORT_FAILURE_LOG_EVERY_MS) {
            lastLogged = now;
            logger.warn(
              { failures, spans: spans.length, err: result.error?.message },
              'traces: the OTLP collector did not take a batch of spans; they are dropped',
            );
            failures = 0;
          }
        }
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}
