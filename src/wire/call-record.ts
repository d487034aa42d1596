// What the wire learnt about one request, for the access log and the
// metrics: the endpoint, binding and operation it reached and how the call
// went. It is found from the response, the one object that lives exactly as
// long as the request, and travels with the wire's own view of a call
// (WireCall in dispatch.ts), never in what an operation is given.
import type { ServerResponse } from 'node:http';
import { ClientError, OperationTimeoutError, StoreError } from '../operations/errors';

export type Binding = 'soap11' | 'soap12' | 'soap' | 'http_get' | 'http_post' | 'document';

/** `client_fault`: the caller's mistake; `server_fault`: ours (the store, a timeout, a bug). */
export type CallOutcome = 'ok' | 'client_fault' | 'server_fault';

export interface CallRecord {
  /** Endpoint name from the contract; null when the request reached none. */
  endpoint: string | null;
  binding: Binding | null;
  /** Wire name of the operation called; null when none was. */
  operation: string | null;
  /** Set once an operation ran, or by whoever refused the request. */
  outcome: CallOutcome | null;
  /**
   * A short code from a bounded set naming why it failed: the operation's
   * ClientError code (`phone_invalid`), `store_unavailable`, `timeout`, …
   */
  fault: string | null;
}

// Keyed by the response rather than stored on it: adding a property to
// Node's response object cost several microseconds a request (measured).
const records = new WeakMap<ServerResponse, CallRecord>();

/** The request's record, created on first use. */
export function callRecordOf(res: ServerResponse): CallRecord {
  let record = records.get(res);
  if (record === undefined) {
    record = { endpoint: null, binding: null, operation: null, outcome: null, fault: null };
    records.set(res, record);
  }
  return record;
}

// The request bodies kept for the shadow calls and the request recording
// (docs/migration.md), only when one of them is on; read within BODY_LIMIT,
// so never larger than it.
const bodies = new WeakMap<ServerResponse, Buffer>();

/** Keeps the body read for this request, for whoever looks once the answer is sent. */
export function keepRequestBody(res: ServerResponse, body: Buffer): void {
  bodies.set(res, body);
}

/** The body read for this request (as inflated, when it came compressed), if it was kept. */
export function requestBodyOf(res: ServerResponse): Buffer | undefined {
  return bodies.get(res);
}

/** Notes a call the access policy refused before it ran (docs/security.md). */
export function noteRefusal(record: CallRecord, operation: string, reason: string): void {
  record.operation = operation;
  record.outcome = 'client_fault';
  record.fault = `access_${reason}`;
}

/** Notes the operation and how it went. */
export function noteCall(record: CallRecord, operation: string, failure: unknown): void {
  record.operation = operation;
  if (failure === null) {
    record.outcome = 'ok';
    return;
  }
  record.outcome = failure instanceof ClientError ? 'client_fault' : 'server_fault';
  record.fault = faultCodeOf(failure);
}

function faultCodeOf(failure: unknown): string {
  if (failure instanceof ClientError) return failure.code;
  if (failure instanceof StoreError) return `store_${failure.kind}`;
  if (failure instanceof OperationTimeoutError) return 'timeout';
  return 'unexpected';
}
