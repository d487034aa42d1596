// What the wire learnt about one request, for the access log and the
// metrics: the endpoint, binding and operation it reached and how the call
// went. It is found from the response, the one object that lives exactly as
// long as the request, and from the call context the dispatcher sees,
// through a symbol that operations never see.
import type { ServerResponse } from 'node:http';
import type { CallContext } from '../operations/context';
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

const RECORD = Symbol('callRecord');

const AUTHORIZATION = Symbol('authorization');

type Carrier = { [RECORD]?: CallRecord; [AUTHORIZATION]?: string };

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

/** The context an operation receives, tied to the request's record so that the dispatcher can note the outcome. */
export function callContextFor(res: ServerResponse, callerAddress: string | null, requestId: string, authorization?: string): CallContext {
  const context: CallContext & Carrier = { callerAddress, requestId };
  context[RECORD] = callRecordOf(res);
  // For the access gate in the dispatcher; operations never see credentials.
  if (authorization !== undefined) context[AUTHORIZATION] = authorization;
  return context;
}

/** The request's Authorization header, as callContextFor was given it. */
export function authorizationOf(context: CallContext): string | undefined {
  return (context as Carrier)[AUTHORIZATION];
}

/** Notes a call the access policy refused before it ran (docs/security.md). */
export function noteRefusal(context: CallContext, operation: string, reason: string): void {
  const record = (context as Carrier)[RECORD];
  if (record === undefined) return;
  record.operation = operation;
  record.outcome = 'client_fault';
  record.fault = `access_${reason}`;
}

/** Notes the operation and how it went; a context not made by callContextFor is ignored. */
export function noteCall(context: CallContext, operation: string, failure: unknown): void {
  const record = (context as Carrier)[RECORD];
  if (record === undefined) return;
  record.operation = operation;
  if (failure === null) {
    record.outcome = 'ok';
    return;
  }
  record.outcome = failure instanceof ClientError ? 'client_fault' : 'server_fault';
  record.fault = faultCodeOf(failure);
}

/** Notes the operation as soon as the binding has found it, so that a call refused before it ran still counts under it. */
export function noteOperation(context: CallContext, operation: string): void {
  const record = (context as Carrier)[RECORD];
  if (record !== undefined) record.operation = operation;
}

/** Notes the binding once it is known (the SOAP version comes from the envelope). */
export function noteBinding(context: CallContext, binding: Binding): void {
  const record = (context as Carrier)[RECORD];
  if (record !== undefined) record.binding = binding;
}

function faultCodeOf(failure: unknown): string {
  if (failure instanceof ClientError) return failure.code;
  if (failure instanceof StoreError) return `store_${failure.kind}`;
  if (failure instanceof OperationTimeoutError) return 'timeout';
  return 'unexpected';
}
