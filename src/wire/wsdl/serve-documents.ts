// What `GET /X.asmx` answers besides calls: `?wsdl` and `?disco` with the
// address the client used, `?schema`, and the help pages
// (docs/design.md#service-descriptions, #help-pages); and `/`, the list of
// endpoints. Which request reaches which is decided in ../asmx-routes.ts.
import type { Request, Response } from 'express';
import type { EndpointModel } from '../../contract';
import { renderOperationList, renderOperationPage, renderServiceList, sendHelpPage } from '../help';
import { rawQueryOf, safeDecode } from '../request-target';
import { CACHE_RESULT, send, sendText } from '../respond';
import { createDescriptionDocuments, type DescriptionDocuments } from './description-documents';

export interface DocumentOptions {
  readonly helpPages: boolean;
  /** PUBLIC_BASE_URL, without a trailing slash: used instead of the Host the caller sent. */
  readonly publicBaseUrl?: string | null;
}

/** Answers a GET of one endpoint's `/X.asmx`, whatever its query. */
export type DocumentServer = (req: Request, res: Response) => void;

export function createDocumentServer(model: EndpointModel, options: DocumentOptions): DocumentServer {
  const documents = createDescriptionDocuments(model);
  const base = options.publicBaseUrl == null ? null : publicBase(options.publicBaseUrl);
  return (req, res) => serveDocument(req, res, model, documents, options.helpPages, base);
}

/** Answers `GET /` with the help pages' list of endpoints. */
export function createServiceListServer(endpoints: readonly EndpointModel[]): (res: Response) => void {
  const serviceList = renderServiceList(endpoints);
  return (res) => sendHelpPage(res, serviceList);
}

/** PUBLIC_BASE_URL taken apart: the host for the help pages' samples, the path the service lives under. */
interface PublicBase {
  readonly origin: string;
  readonly host: string;
  readonly path: string;
}

function publicBase(url: string): PublicBase {
  const parsed = new URL(url);
  return { origin: parsed.origin, host: parsed.host, path: parsed.pathname.replace(/\/+$/, '') };
}

function serveDocument(req: Request, res: Response, model: EndpointModel, documents: DescriptionDocuments, helpPages: boolean, base: PublicBase | null): void {
  const query = new URLSearchParams(rawQueryOf(req.originalUrl));
  const address = base === null ? addressOf(req) : `${base.origin}${base.path}${pathOf(req)}`;
  for (const [key, value] of query) {
    const name = key.toLowerCase();
    if (name === 'wsdl' || name === 'disco') {
      if (value !== '') {
        sendText(res, 500, 'XML Web service description was not found.');
        return;
      }
      const document = name === 'wsdl' ? documents.wsdl(address) : documents.disco(address);
      send(res, 200, 'text/xml; charset=utf-8', document, CACHE_RESULT);
      return;
    }
    // The WSDL imports no schema, so ASMX finds none whatever the id; it
    // answers with a document's cache policy, not an error's (docs/design.md).
    if (name === 'schema') {
      sendText(res, 500, 'Schema not found.', CACHE_RESULT);
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
      ? renderOperationList(model)
      : renderOperationPage(
          model,
          op.join(','),
          base === null ? { host: hostOf(req), path: pathOf(req) } : { host: base.host, path: `${base.path}${pathOf(req)}` },
        );
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
