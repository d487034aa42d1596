// What the wire learns about one request, for the access log, the metrics,
// the traces, the shadow calls and the request recording: the endpoint,
// binding and operation it reached, how the call went, the request id, and
// (when something looks after the answer) the body read and the answer sent.
//
// One record is made per request, by the request listener
// (src/server/app.ts), and handed on explicitly: as a parameter to the
// observers and the `.asmx` calls, and as `res.locals.call` to the Express
// application's routes (health, metrics, the admin API, the console). There
// is no module-level map keyed by requests or responses
// (test/unit/request-state.test.ts), and nothing is written into the
// request's headers (docs/design.md#per-request-state).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Response } from 'express';
import { ClientError, OperationTimeoutError, StoreError } from '../operations/errors';

export type Binding = 'soap11' | 'soap12' | 'soap' | 'http_get' | 'http_post' | 'document';

/** `client_fault`: the caller's mistake; `server_fault`: ours (the store, a timeout, a bug). */
export type CallOutcome = 'ok' | 'client_fault' | 'server_fault';

/**
 * The one hook on an answer: the wire's `send` (respond.ts) hands a call's
 * successful answer to it, headers and bytes as written, when one is set
 * (the shadow's capture, src/observe/answer-capture.ts). Nothing patches the
 * response's methods.
 */
export type AnswerTap = (
  res: ServerResponse,
  status: number,
  headers: OutgoingHttpHeaders,
  chunks: readonly Buffer[],
) => void;

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export class CallRecord {
  /** Endpoint name from the contract; null when the request reached none. */
  endpoint: string | null = null;
  binding: Binding | null = null;
  /** Wire name of the operation called; null when none was. */
  operation: string | null = null;
  /** Set once an operation ran, or by whoever refused the request. */
  outcome: CallOutcome | null = null;
  /**
   * A short code from a bounded set naming why it failed: the operation's
   * ClientError code (`phone_invalid`), `store_unavailable`, `timeout`, …
   */
  fault: string | null = null;
  /**
   * The body read for this request (as inflated, when it came compressed),
   * kept only when the shadow calls or the request recording are on
   * (docs/migration.md); read within BODY_LIMIT, so never larger than it.
   */
  body: Buffer | undefined = undefined;
  /** Set by whoever wants a copy of the answer (see AnswerTap); null: nobody, at the cost of one test. */
  answerTap: AnswerTap | null = null;
  /**
   * The route's pattern (`/admin/api/v1/students/:id`), set by the routes whose
   * paths name records (the admin API, the console): the access line writes it
   * instead of the path (docs/operating.md#logs). null: the path is written.
   */
  route: string | null = null;

  constructor(
    /** The caller's well-formed X-Request-Id, or one made here: the id every log line of the request carries. */
    readonly requestId: string,
    /** The caller sent the id, so the answer echoes it (src/observe/request-observer.ts). */
    readonly idFromCaller: boolean,
  ) {}
}

/** The record of a request just received: its id is the caller's well-formed X-Request-Id, or a new one. */
export function startCall(req: IncomingMessage): CallRecord {
  const header = req.headers['x-request-id'];
  const incoming = Array.isArray(header) ? header[0] : header;
  return incoming !== undefined && REQUEST_ID.test(incoming)
    ? new CallRecord(incoming, true)
    : new CallRecord(randomUUID(), false);
}

// The record as the Express application's routes find it (src/server/app.ts
// puts it there before handing the request over).
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      call: CallRecord;
    }
  }
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

/**
 * The record of a request in the Express application: the one the listener
 * made, or a new one when a router is mounted without it (a test's own
 * Express application).
 */
export function callOf(res: Response): CallRecord {
  return (res.locals.call ??= startCall(res.req));
}
