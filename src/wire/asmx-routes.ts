// Where a request enters, and which handler answers it: `/X.asmx` (SOAP,
// ?wsdl, ?disco, help), `/X.asmx/Op` (HTTP GET/POST) and `/` (the help pages'
// list of endpoints). Routing only: the bindings are in ./soap and ./http,
// the documents in ./wsdl/serve-documents.ts. Paths match case-insensitively,
// as on IIS.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import parseurl from 'parseurl';
import type { AccessControl, DocumentVerdict } from '../access';
import type { EndpointModel } from '../contract';
import type { Dispatcher, WireCall } from './dispatch';
import { createHttpOperationHandler } from './http/handler';
import { rawQueryOf, safeDecode } from './request-target';
import { sendAccessRefusal, sendText } from './respond';
import { httpOperationGate, soapGate, type PreBodyAccess } from './access-gate';
import { createBodyReader, type BodyGate } from './read-body';
import { createSoapHandler } from './soap/handler';
import { createSoapRouter } from './soap/router';
import { createDocumentServer, createServiceListServer, type DocumentOptions } from './wsdl/serve-documents';
import { callOf, type CallRecord } from './call-record';

const ASMX_PATH = /^\/([^/]+)\.asmx(?:\/(.*))?$/i;

/** What both halves need to know. */
interface AsmxOptions {
  readonly endpoints: readonly EndpointModel[];
}

export interface AsmxCallOptions extends AsmxOptions {
  readonly dispatcher: Dispatcher;
  readonly bodyLimit: number;
  /** Deepest element nesting of a SOAP request (envelope-reader.ts). */
  readonly xmlMaxDepth: number;
  /** JSON_BODIES (see http/app-json.ts). */
  readonly jsonBodies?: boolean;
  /** The caller's address as Express's `req.ip` gives it, TRUST_PROXY applied. */
  readonly callerAddress: (req: IncomingMessage) => string | null;
  /** Hand the Authorization header to the dispatcher's access check (WireCall): an access policy is in force (src/access). */
  readonly passCredentials?: boolean;
  /** The access policy, to refuse a caller before its body is read (access-gate.ts); absent: no policy. */
  readonly access?: PreBodyAccess;
  /** Keep each body read for the shadow calls or the request recording (CallRecord.body in call-record.ts). */
  readonly keepBodies?: boolean;
}

export interface AsmxDocumentOptions extends AsmxOptions, DocumentOptions {
  /** The access policy's rule for documents (docs/security.md); absent: every document open. */
  readonly access?: Pick<AccessControl, 'checkDocument'>;
}

/**
 * The `.asmx` calls: `next` when the request is not one of them (the Express
 * application answers it), `fail` with whatever a call threw or rejected with
 * (the last resort answers it).
 */
export type AsmxCalls = (
  req: IncomingMessage,
  res: ServerResponse,
  record: CallRecord,
  next: () => void,
  fail: (err: unknown) => void,
) => void;

/**
 * The operation calls: POST `/X.asmx` (SOAP 1.1 and 1.2) and `/X.asmx/Op`
 * (HTTP GET and POST, other methods refused as ASMX does). Anything else goes
 * to `next`. Uses nothing but Node's own request and response: it runs in
 * front of the Express application (src/server/app.ts says why).
 *
 * No promise of its own between the request and the answer: the body's last
 * event hands it to the binding, and an operation that answers at once is
 * written in the same turn (docs/benchmark.md#fourth-round).
 */
export function createAsmxCalls(options: AsmxCallOptions): AsmxCalls {
  const endpoints = endpointMap(options.endpoints, (model) => ({
    soap: createSoapHandler(model, options.dispatcher, options.xmlMaxDepth),
    http: createHttpOperationHandler(model, options.dispatcher, { jsonBodies: options.jsonBodies }),
    router: createSoapRouter(model),
  }));
  const readBody = createBodyReader(options.bodyLimit);
  const credentials = options.passCredentials === true;
  const access = options.access;
  const keepBodies = options.keepBodies === true;

  return (req, res, record, next, fail) => {
    const url = parseurl(req);
    const match = url?.pathname == null ? null : ASMX_PATH.exec(url.pathname);
    const found = match ? endpoints.get(safeDecode(match[1]).toLowerCase()) : undefined;
    const operationPath = match?.[2];
    if (found === undefined || (operationPath === undefined && req.method !== 'POST')) {
      next();
      return;
    }
    const address = options.callerAddress(req);
    record.endpoint = found.model.name;
    record.binding = operationPath === undefined ? 'soap' : req.method === 'POST' ? 'http_post' : 'http_get';
    // The operation is told the caller's address and the request id; the credentials are for the access policy alone.
    const call: WireCall = {
      context: { callerAddress: address, requestId: record.requestId },
      record,
      authorization: credentials ? req.headers.authorization : undefined,
    };

    let gate: BodyGate | undefined;
    if (access !== undefined) {
      const request = { headers: req.headers, address, record, res };
      gate =
        operationPath === undefined
          ? soapGate(access, found.model, found.handlers.router, request)
          : httpOperationGate(access, found.model, safeDecode(operationPath), request);
    }
    // The binding's answer, at once or once its operation has answered; whatever it throws goes to `fail`.
    const answer = (body: Buffer | undefined): void => {
      let answered: void | Promise<void>;
      try {
        answered =
          operationPath !== undefined
            ? found.handlers.http(req, res, operationPath, rawQueryOf(req.url ?? ''), body, call)
            : found.handlers.soap(req, res, body as Buffer, call);
      } catch (err) {
        fail(err);
        return;
      }
      if (answered instanceof Promise) answered.catch(fail);
    };
    if (req.method === 'POST') {
      readBody(req, res, gate, (body) => {
        if (body === null) return;
        if (keepBodies) record.body = body;
        answer(body);
      });
      return;
    }
    // HTTP GET has no body: the same gate decides before its query is read, so that every binding refuses alike.
    if (gate === undefined) {
      answer(undefined);
      return;
    }
    const verdict = gate.decide();
    if (verdict instanceof Promise) verdict.then((goOn) => (goOn ? answer(undefined) : undefined), fail);
    else if (verdict) answer(undefined);
  };
}

/**
 * The rest of what `/X.asmx` answers, on the Express application: `?wsdl`,
 * `?disco`, the help pages (and `/`, the list of endpoints), and 405 for a
 * method that is neither GET nor POST. Needs Express's view of the address
 * the client used.
 */
export function createAsmxDocuments(options: AsmxDocumentOptions): RequestHandler {
  const endpoints = endpointMap(options.endpoints, (model) => createDocumentServer(model, options));
  const serviceList = createServiceListServer(options.endpoints);
  const access = options.access;
  /** Runs `serve` once the access policy lets the caller read the endpoint's documents. */
  const serveIfAllowed = (
    req: Request,
    res: Response,
    next: NextFunction,
    endpoint: string | null,
    serve: () => void,
  ) => {
    if (access === undefined) {
      serve();
      return;
    }
    const verdict = access.checkDocument(endpoint, req.ip ?? null, req.headers.authorization);
    const decide = (refusal: DocumentVerdict) => {
      if (refusal === null) serve();
      else sendAccessRefusal(res, refusal);
    };
    if (verdict instanceof Promise) verdict.then(decide, next);
    else decide(verdict);
  };

  return (req: Request, res: Response, next: NextFunction) => {
    if (req.path === '/' && options.helpPages && (req.method === 'GET' || req.method === 'HEAD')) {
      serveIfAllowed(req, res, next, null, () => serviceList(res));
      return;
    }
    const match = ASMX_PATH.exec(req.path);
    const found = match ? endpoints.get(safeDecode(match[1]).toLowerCase()) : undefined;
    if (!match || found === undefined || match[2] !== undefined) {
      next();
      return;
    }
    const record = callOf(res);
    record.endpoint = found.model.name;
    record.binding = 'document';
    if (req.method === 'GET') {
      serveIfAllowed(req, res, next, found.model.name, () => found.handlers(req, res));
      return;
    }
    res.setHeader('Allow', 'GET, POST');
    sendText(res, 405, 'Request format is unrecognized.');
  };
}

/** Endpoints by lower-cased name (IIS matches paths in any letter case), each with what serves it. */
function endpointMap<T>(
  models: readonly EndpointModel[],
  build: (model: EndpointModel) => T,
): Map<string, { model: EndpointModel; handlers: T }> {
  return new Map(models.map((model) => [model.name.toLowerCase(), { model, handlers: build(model) }]));
}
