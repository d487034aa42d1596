// Where a request enters: `/X.asmx` (SOAP, ?wsdl, ?disco, help),
// `/X.asmx/Op` (HTTP GET/POST) and `/` (the help pages' list of endpoints).
// Paths match case-insensitively, as on IIS.
import { randomUUID } from 'node:crypto';
import bodyParser from 'body-parser';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { EndpointModel } from '../contract';
import type { CallContext } from '../operations';
import type { Dispatcher } from './dispatch';
import { renderOperationList, renderOperationPage, renderServiceList, sendHelpPage } from './help';
import { createHttpOperationHandler, type HttpOperationHandler } from './http/handler';
import { CACHE_RESULT, send, sendText } from './respond';
import { createSoapHandler, type SoapHandler } from './soap/handler';
import { createDescriptionDocuments, type DescriptionDocuments } from './wsdl/description-documents';
import { callContextFor, callRecordOf } from './call-record';

const ASMX_PATH = /^\/([^/]+)\.asmx(?:\/(.*))?$/i;

interface EndpointRoutes {
  readonly model: EndpointModel;
  readonly soap: SoapHandler;
  readonly http: HttpOperationHandler;
  readonly documents: DescriptionDocuments;
}

export interface AsmxRouteOptions {
  readonly endpoints: readonly EndpointModel[];
  readonly dispatcher: Dispatcher;
  readonly bodyLimit: number;
  readonly helpPages: boolean;
  /** JSON_BODIES (see http/app-json.ts). */
  readonly jsonBodies?: boolean;
}

export function createAsmxRoutes(options: AsmxRouteOptions): RequestHandler {
  const endpoints = new Map<string, EndpointRoutes>(
    options.endpoints.map((model) => [
      model.name.toLowerCase(),
      {
        model,
        soap: createSoapHandler(model, options.dispatcher),
        http: createHttpOperationHandler(model, options.dispatcher, { jsonBodies: options.jsonBodies }),
        documents: createDescriptionDocuments(model),
      },
    ]),
  );
  const readBody = bodyParser.raw({ type: () => true, limit: options.bodyLimit });
  const serviceList = renderServiceList(options.endpoints);

  return async (req: Request, res: Response, next: NextFunction) => {
    if (req.path === '/' && options.helpPages && (req.method === 'GET' || req.method === 'HEAD')) {
      sendHelpPage(res, serviceList);
      return;
    }
    const match = ASMX_PATH.exec(req.path);
    const endpoint = match ? endpoints.get(safeDecode(match[1]).toLowerCase()) : undefined;
    if (!match || endpoint === undefined) {
      next();
      return;
    }
    const operationPath = match[2];
    const context: CallContext = callContextFor(res, req.ip ?? null, requestIdOf(req));
    const record = callRecordOf(res);
    record.endpoint = endpoint.model.name;
    record.binding = operationPath !== undefined ? (req.method === 'POST' ? 'http_post' : 'http_get') : req.method === 'POST' ? 'soap' : 'document';

    if (operationPath !== undefined) {
      const body = req.method === 'POST' ? await readRawBody(readBody, req, res, options.bodyLimit) : undefined;
      if (body === null) return;
      await endpoint.http(req, res, operationPath, rawQueryOf(req), body, context);
      return;
    }
    if (req.method === 'POST') {
      const body = await readRawBody(readBody, req, res, options.bodyLimit);
      if (body === null) return;
      await endpoint.soap(req, res, body, context);
      return;
    }
    if (req.method === 'GET') {
      serveDocument(req, res, endpoint, options.helpPages);
      return;
    }
    res.setHeader('Allow', 'GET, POST');
    sendText(res, 405, 'Request format is unrecognized.');
  };
}

function serveDocument(req: Request, res: Response, endpoint: EndpointRoutes, helpPages: boolean): void {
  const query = new URLSearchParams(rawQueryOf(req));
  const address = addressOf(req);
  for (const [key, value] of query) {
    const name = key.toLowerCase();
    if (name === 'wsdl' || name === 'disco') {
      if (value !== '') {
        sendText(res, 500, 'XML Web service description was not found.');
        return;
      }
      const document = name === 'wsdl' ? endpoint.documents.wsdl(address) : endpoint.documents.disco(address);
      send(res, 200, 'text/xml; charset=utf-8', document, CACHE_RESULT);
      return;
    }
  }
  if (!helpPages) {
    sendText(res, 500, 'Request format is unrecognized.');
    return;
  }
  // ASP.NET's QueryString["op"]: the key in any letter case, repeated values joined with `,`.
  const op = [...query].filter(([key]) => key.toLowerCase() === 'op').map(([, value]) => value);
  const page =
    op.length === 0
      ? renderOperationList(endpoint.model)
      : renderOperationPage(endpoint.model, op.join(','), { host: hostOf(req), path: pathOf(req) });
  sendHelpPage(res, page);
}

/** The address the client used: scheme, host and port (X-Forwarded-* only from trusted proxies), and the path. */
function addressOf(req: Request): string {
  return `${req.protocol}://${hostOf(req)}${pathOf(req)}`;
}

function hostOf(req: Request): string {
  return req.host ?? `${req.socket.localAddress ?? 'localhost'}:${req.socket.localPort ?? ''}`;
}

function pathOf(req: Request): string {
  return encodeURI(safeDecode(req.path));
}

function rawQueryOf(req: Request): string {
  const q = req.originalUrl.indexOf('?');
  return q < 0 ? '' : req.originalUrl.slice(q + 1);
}

function requestIdOf(req: Request): string {
  const header = req.headers['x-request-id'];
  const id = Array.isArray(header) ? header[0] : header;
  return id !== undefined && /^[\w.:-]{1,128}$/.test(id) ? id : randomUUID();
}

/** Reads the whole body within the limit; on failure answers the request itself and returns null. */
function readRawBody(readBody: RequestHandler, req: Request, res: Response, limit: number): Promise<Buffer | null> {
  const encoding = req.headers['content-encoding'];
  if (encoding === undefined || encoding === 'identity') return readPlainBody(req, res, limit);
  // A compressed body (rare from SOAP clients): body-parser inflates it, the limit applying to what it inflates to.
  return new Promise((resolve) => {
    void readBody(req, res, (err?: unknown) => {
      if (err === undefined || err === null) {
        resolve(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
        return;
      }
      const type = (err as { type?: string }).type;
      if (type === 'entity.too.large') refuseTooLarge(res, limit);
      else if (type === 'encoding.unsupported') sendText(res, 415, 'Unsupported Content-Encoding.');
      else if (type === 'request.aborted') res.destroy();
      else sendText(res, 400, 'The request body could not be read.');
      resolve(null);
    });
  });
}

/**
 * The plain body, read straight off the stream: the common case, on the hot
 * path, where body-parser's general machinery cost a measurable share of a
 * small SOAP call.
 */
function readPlainBody(req: Request, res: Response, limit: number): Promise<Buffer | null> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    refuseTooLarge(res, limit);
    return Promise.resolve(null);
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) {
        settled = true;
        refuseTooLarge(res, limit);
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    });
    req.on('error', () => {
      if (settled) return;
      settled = true;
      res.destroy();
      resolve(null);
    });
  });
}

/** The rest of an oversized body is not read: the connection closes after the answer. */
function refuseTooLarge(res: Response, limit: number): void {
  res.setHeader('Connection', 'close');
  sendText(res, 413, `Request body exceeds the limit of ${limit} bytes.`);
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
