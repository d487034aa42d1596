// What the rest of the service asks of tracing (docs/operating.md#traces): a
// span per call, per store statement, per message queued and per send. Plain
// values in, no OpenTelemetry type out, so that with tracing off nothing of
// OpenTelemetry is loaded: the parts hold a `Tracer | null` and test it once.
// The attributes each span carries are named in otel-tracer.ts, in one place.
import type { EventEmitter } from 'node:events';
import type { OutboxChannel } from '../shared/outbox-channel';

/** An incoming request as the call span starts: never its query or its body. */
export interface RequestStart {
  readonly method: string;
  /** The path without the query (which carries phone numbers and codes). */
  readonly path: string;
  /** The request's W3C `traceparent` and `tracestate` headers, if any: the call continues that trace. */
  readonly traceparent: string | undefined;
  readonly tracestate: string | undefined;
  /**
   * The request: its events (the body's last chunk, which hands the body to the binding without a promise
   * between, docs/design.md#answered-in-the-same-turn) run inside the call's span, so that what the operation
   * does is traced under it.
   */
  readonly emitter?: EventEmitter;
}

/** What the wire learnt about the request by the time it was answered (src/wire/call-record.ts). */
export interface RequestEnd {
  /** 0: the client left before the answer was handed over. */
  readonly statusCode: number;
  readonly requestId: string;
  readonly endpoint: string | null;
  readonly binding: string | null;
  readonly operation: string | null;
  /** `ok`, `client_fault` or `server_fault`. */
  readonly outcome: string;
  /** A short code from a bounded set (`phone_invalid`, `access_refused`, `store_unavailable`…). */
  readonly fault: string | null;
  /** The pattern of a route whose path names a record (`/admin/api/v1/students/:id`): it replaces the path. */
  readonly route: string | null;
}

export interface RequestSpan {
  end(request: RequestEnd): void;
}

/** A statement as the store runs it: its text with placeholders, never its bound values. */
export interface StatementStart {
  readonly system: 'sqlite' | 'postgresql';
  readonly text: string;
}

export type { OutboxChannel };

export interface QueueSpan {
  /** The W3C traceparent the queued row keeps, so that its send can be linked back here; null if there is none to give. */
  readonly traceparent: string | null;
  /** The row written (its outbox id), or the limit that refused it (AuthCode). */
  queued(messageId: string): void;
  refused(limit: string): void;
}

/** One attempt of the delivery worker to hand a claimed message to its provider. */
export interface DeliveryStart {
  readonly channel: OutboxChannel;
  readonly messageId: string;
  readonly provider: string;
  /** This attempt's number, 1 for the first. */
  readonly attempt: number;
  /** What the queueing call stored with the row; null for rows queued without tracing. */
  readonly traceparent: string | null;
}

export interface DeliverySpan {
  /** `sent`, `retry`, `dead` or `uncertain`, and the provider's (or our) short error code. */
  finished(outcome: string, errorCode: string | null): void;
}

export interface Tracer {
  /** Runs `work` inside a server span for the request, the child of its incoming traceparent when it has one. */
  request<T>(start: RequestStart, work: (span: RequestSpan) => T): T;
  /** `work` in a child span of the current span; just `work` when no span is current (the worker's polls, timers). */
  statement<T>(start: StatementStart, work: () => Promise<T>): Promise<T>;
  /** `work` in a span for queueing one message into the outbox; a failure marks the span failed. */
  enqueue<T>(channel: OutboxChannel, work: (span: QueueSpan) => Promise<T>): Promise<T>;
  /** `work` in a new trace's span for one send, linked to the span that queued the message. */
  delivery<T>(start: DeliveryStart, work: (span: DeliverySpan) => Promise<T>): Promise<T>;
  /** Exports what is still buffered and stops; gives up after `timeoutMs`. Safe to repeat. */
  shutdown(timeoutMs: number): Promise<void>;
}
