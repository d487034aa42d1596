// The first middleware every request meets: it echoes the caller's
// well-formed X-Request-Id (the call record holds the request's id,
// src/wire/call-record.ts), and when the answer is
// done it feeds the metrics and writes one access-log line with what the wire
// learnt (endpoint, operation, binding, outcome). Never the query string or
// the body: they carry phone numbers and auth codes. With tracing on, the
// rest of the request runs inside its call span (docs/operating.md#traces).
import type { IncomingMessage, ServerResponse } from 'node:http';
import parseurl from 'parseurl';
import type { Logger } from '../log';
import type { RequestMetrics, RequestObservation } from '../metrics';
import type { RequestSpan, Tracer } from '../trace';
import type { CallRecord } from '../wire';
import { accessLineWriter } from './access-line';

export interface RequestObserverOptions {
  readonly logger: Logger;
  readonly metrics?: RequestMetrics;
  /** A span for every request; absent or null: off, and a request pays one test of it. */
  readonly tracer?: Tracer | null;
}

/**
 * Middleware on Node's own request and response: it runs before Express has
 * decorated them (src/server/app.ts), and is handed the request's call record.
 */
export type RequestObserver = (req: IncomingMessage, res: ServerResponse, call: CallRecord, next: () => void) => void;

export function observeRequests(options: RequestObserverOptions): RequestObserver {
  const { metrics } = options;
  const tracer = options.tracer ?? null;
  // The access line is built here from fields that hold no secret (never the
  // query or the body), so it skips the redaction pass, a measurable share
  // of each request's cost.
  // The line itself is joined by accessLineWriter, byte for byte as pino would (access-line.ts).
  const writeLine = accessLineWriter(options.logger.child({}, { redact: { paths: [], censor: '' } }));
  return (req, res, record, next) => {
    const start = process.hrtime.bigint();
    // Taken now: a router mounted further on rewrites req.url while it works.
    const path = parseurl(req)?.pathname ?? '/';
    const requestId = record.requestId;
    // Echoed only when the caller sent one: a header set here takes Node's
    // slower path when the wire writes its answer (about 5% of a GetTokenDevice).
    if (record.idFromCaller) res.setHeader('X-Request-Id', requestId);

    // 'finish' when the answer is handed over (before the client can read it,
    // so a test that asks next sees the count); 'close' alone when the client left first.
    let observed = false;
    let span: RequestSpan | null = null;
    const done = () => {
      if (observed) return;
      observed = true;
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const finished = res.writableFinished;
      const status = finished ? res.statusCode : 0;
      const observation = observe(record, status, seconds);
      metrics?.observe(observation);
      span?.end({
        statusCode: status,
        requestId,
        endpoint: record.endpoint,
        binding: record.binding,
        operation: record.operation,
        outcome: observation.outcome,
        fault: observation.fault,
        route: record.route,
      });
      const entry = {
        requestId,
        method: req.method,
        // A route whose path names a record gives its pattern instead (docs/operating.md#logs).
        path: record.route ?? path,
        status,
        durationMs: Math.round(seconds * 1e6) / 1e3,
        endpoint: record.endpoint ?? undefined,
        operation: record.operation ?? undefined,
        binding: record.binding ?? undefined,
        outcome: observation.outcome,
        fault: observation.fault ?? undefined,
      };
      // One message for every request, so that `msg == "request"` finds them all; our own failures at warn.
      if (!finished) writeLine('info', { ...entry, aborted: true });
      else writeLine(observation.outcome === 'server_fault' ? 'warn' : 'info', entry);
    };
    res.on('finish', done);
    res.on('close', done);
    if (tracer === null) {
      next();
      return;
    }
    const request = {
      method: req.method ?? 'GET',
      path,
      traceparent: firstOf(req.headers.traceparent),
      tracestate: firstOf(req.headers.tracestate),
      emitter: req,
    };
    tracer.request(request, (requestSpan) => {
      span = requestSpan;
      next();
    });
  };
}

function firstOf(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header[0] : header;
}

// Plain literals of one shape: this runs for every request.
function observe(record: CallRecord, status: number, seconds: number): RequestObservation {
  const endpoint = record.endpoint ?? 'none';
  const operation = record.operation ?? 'none';
  const binding = record.binding ?? 'none';
  if (record.outcome !== null)
    return { endpoint, operation, binding, outcome: record.outcome, fault: record.fault, seconds };
  if (status === 0) return { endpoint, operation, binding, outcome: 'client_fault', fault: 'aborted', seconds };
  if (status < 400) return { endpoint, operation, binding, outcome: 'ok', fault: null, seconds };
  // The ASMX wire answers the caller's mistakes itself, with 500 among them
  // (`Missing parameter: phone.`); our own failures there are noted by the
  // dispatcher or the app's last-resort handler.
  const callersMistake = record.binding !== null || status < 500;
  return {
    endpoint,
    operation,
    binding,
    outcome: callersMistake ? 'client_fault' : 'server_fault',
    fault: `http_${status}`,
    seconds,
  };
}
