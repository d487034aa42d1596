// What a replayed request is (endpoint, operation, binding), read from the
// request alone as the service would route it: for the ignore rules' scopes,
// the report's table, and above all to keep writes out unless asked.
import { SaxesParser } from 'saxes';
import { bodyBytes, type RecordedRequest } from './exchange';
import type { BindingName } from './generate-requests';

export interface RequestClass {
  readonly endpoint: string | null;
  /** The operation it calls; null for documents, and for a call whose operation cannot be told (treated as a write). */
  readonly operation: string | null;
  readonly binding: BindingName;
  /** A call, as opposed to `?wsdl`, `?disco` or a help page. */
  readonly isCall: boolean;
}

const ASMX_PATH = /^\/([^/?]+)\.asmx(?:\/([^?]*))?(?:\?.*)?$/i;

export function classifyRequest(request: RecordedRequest): RequestClass {
  const match = ASMX_PATH.exec(request.path);
  if (match === null) return { endpoint: null, operation: null, binding: 'document', isCall: false };
  const endpoint = safeDecode(match[1]);
  if (match[2] !== undefined)
    return {
      endpoint,
      operation: safeDecode(match[2]),
      binding: request.method === 'POST' ? 'http_post' : 'http_get',
      isCall: true,
    };
  if (request.method !== 'POST') return { endpoint, operation: null, binding: 'document', isCall: false };
  const contentType = (request.headers['content-type'] ?? '').toLowerCase();
  const soap12 = contentType.startsWith('application/soap+xml');
  const action = soap12
    ? /;\s*action\s*=\s*"?([^";]*)"?/i.exec(request.headers['content-type'] ?? '')?.[1]
    : request.headers.soapaction?.replace(/^"(.*)"$/, '$1');
  const named = action === undefined || action === '' ? undefined : action.replace(/^.*\//, '');
  return {
    endpoint,
    operation: named ?? bodyOperation(bodyBytes(request).toString('utf8')),
    binding: soap12 ? 'soap12' : 'soap11',
    isCall: true,
  };
}

/** The local name of the first element inside the SOAP Body, or null. */
function bodyOperation(text: string): string | null {
  const parser = new SaxesParser({ xmlns: true });
  let depth = 0;
  let found: string | null = null;
  let inBody = false;
  parser.on('opentag', (tag) => {
    depth++;
    if (depth === 2 && tag.local === 'Body') inBody = true;
    else if (depth === 3 && inBody && found === null) found = tag.local;
  });
  parser.on('closetag', () => {
    depth--;
  });
  parser.on('error', () => undefined);
  try {
    parser.write(text.slice(0, 65536)).close();
  } catch {
    // Malformed: what was read before the error stands.
  }
  return found;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
