// The service's request listener: an Express router for the operation calls
// in front of an Express application for everything else.
//
// Why two: the Express application swaps the prototype of every request and
// response it handles, to give them `req.path`, `req.ip`, `res.json` and the
// like. Measured on this project's GetTokenDevice, that swap makes all the
// work Node's HTTP and stream code does with those objects afterwards (reading
// the body, writing the answer, the listeners) markedly slower: about 70 µs of
// a 200 µs SOAP call, and half of an HTTP GET call (docs/benchmark.md).
// The operation calls need none of what it adds, so they are routed in front
// of it on Node's objects as they are (the observer, then the `.asmx` calls,
// called directly: an Express Router there cost a few µs a call for a single
// path with no parameters, docs/benchmark.md#request-path), and reach the
// application only when they are not calls: help pages, `?wsdl`, `?disco`,
// health, metrics, the admin API, 404s.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import parseurl from 'parseurl';
import type { Logger } from 'pino';
import proxyaddr from 'proxy-addr';
import type { AccessControl } from '../access';
import type { EndpointModel } from '../contract';
import type { RequestObserver } from '../observe';
import type { Operations } from '../operations';
import {
  type CallRecord,
  createAsmxCalls,
  createAsmxDocuments,
  createDispatcher,
  DEFAULT_MAX_XML_DEPTH,
  QUERY_STRING_TOO_LONG,
  queryStringTooLong,
  callOf,
  sendText,
  startCall,
} from '../wire';
import { operatorRoutes, type OperatorRoute } from './operator-routes';

export interface AppOptions {
  readonly endpoints: readonly EndpointModel[];
  readonly operations: Operations;
  readonly logger: Logger;
  readonly bodyLimit: number;
  /** XML_MAX_DEPTH; left out, the reader's default (DEFAULT_MAX_XML_DEPTH). */
  readonly xmlMaxDepth?: number;
  /** Express `trust proxy` value; false trusts nobody. */
  readonly trustProxy: boolean | number | string;
  readonly operationTimeoutMs: number;
  readonly helpPages: boolean;
  /** JSON_BODIES: the mobile apps' JSON over HTTP GET/POST (docs/design.md#json-bodies). */
  readonly jsonBodies?: boolean;
  /** First in line for every request: request ids, metrics, the access log. */
  readonly observe?: RequestObserver;
  /** Mounted before the ASMX documents: health, metrics, the admin API. */
  readonly routes?: readonly OperatorRoute[];
  /** The access policy (docs/security.md); absent: every call and document open, at no cost. */
  readonly access?: AccessControl;
  /** PUBLIC_BASE_URL: the service's address in ?wsdl, ?disco and help pages instead of the caller's Host. */
  readonly publicBaseUrl?: string | null;
  /** Keep request bodies for what `observe` does after the answer: shadow calls, request recording (docs/migration.md). */
  readonly keepBodies?: boolean;
  /** MAX_QUERY_STRING_LENGTH: a longer query string is a 400 before anything reads it; left out or 0, no limit. */
  readonly maxQueryStringLength?: number;
}

/** A listener for `http.createServer`, or for supertest. */
export type App = RequestListener;

export function createApp(options: AppOptions): App {
  // Last line of defence: never an HTML page or a stack trace.
  const lastResort = (err: unknown, req: IncomingMessage, res: ServerResponse, call: CallRecord) => {
    call.outcome = 'server_fault';
    call.fault = 'unexpected';
    // The path only: queries carry phone numbers and codes.
    options.logger.error(
      { err, method: req.method, path: call.route ?? parseurl(req)?.pathname },
      'unhandled request error',
    );
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendText(res, 500, 'Internal server error.');
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', options.trustProxy);
  if (options.routes !== undefined) app.use(operatorRoutes(options.routes));
  // Health and metrics come first and never pass the access policy.
  app.use(
    createAsmxDocuments({
      endpoints: options.endpoints,
      helpPages: options.helpPages,
      access: options.access,
      publicBaseUrl: options.publicBaseUrl,
    }),
  );
  app.use((_req: Request, res: Response) => {
    sendText(res, 404, 'Not Found.');
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => lastResort(err, req, res, callOf(res)));

  // The same rule `req.ip` follows in the application, compiled by Express from TRUST_PROXY.
  const trust = app.get('trust proxy fn') as (address: string, hop: number) => boolean;
  const calls = createAsmxCalls({
    endpoints: options.endpoints,
    dispatcher: createDispatcher(options.operations, options.logger, options.operationTimeoutMs, options.access),
    bodyLimit: options.bodyLimit,
    xmlMaxDepth: options.xmlMaxDepth ?? DEFAULT_MAX_XML_DEPTH,
    jsonBodies: options.jsonBodies,
    // Trusting no proxy, the address is the socket's: proxy-addr would parse
    // X-Forwarded-For only to drop it (2 µs a call in the profile, docs/benchmark.md#request-path).
    callerAddress:
      options.trustProxy === false
        ? (req) => req.socket.remoteAddress ?? null
        : (req) => (req.socket.remoteAddress === undefined ? null : proxyaddr(req, trust)),
    passCredentials: options.access !== undefined,
    access: options.access,
    keepBodies: options.keepBodies,
  });
  // After the observer, so that the refusal is counted and logged as any answer.
  const maxQuery = options.maxQueryStringLength ?? 0;
  // A call, or else the application; whatever escapes either way gets the last resort.
  const callOrApplication = (req: IncomingMessage, res: ServerResponse, call: CallRecord) => {
    if (maxQuery > 0 && queryStringTooLong(req, maxQuery)) {
      call.outcome = 'client_fault';
      call.fault = 'query_string_too_long';
      sendText(res, 400, QUERY_STRING_TOO_LONG);
      return;
    }
    calls(
      req,
      res,
      call,
      () => {
        // The application's routes find the record as `res.locals.call` (callOf);
        // Express keeps a `locals` it finds on the response.
        (res as ServerResponse & { locals: Response['locals'] }).locals = { call };
        app(req, res);
      },
      (err: unknown) => lastResort(err, req, res, call),
    );
  };
  const observe = options.observe;

  // The request's call record is made here, once, and handed on (src/wire/call-record.ts).
  return (req, res) => {
    const call = startCall(req);
    try {
      if (observe === undefined) callOrApplication(req, res, call);
      else observe(req, res, call, () => callOrApplication(req, res, call));
    } catch (err) {
      lastResort(err, req, res, call);
    }
  };
}
