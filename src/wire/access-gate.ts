// The access policy's network and credentials checks, made before a call's
// parameters are read (docs/security.md#refused-before-the-body): a caller
// the policy refuses is answered from what its request line and headers say,
// and its body is neither buffered nor parsed. The operation comes from the path
// (HTTP POST), the SOAPAction header or the `action` parameter (SOAP); when
// only the body element names it, the first bytes of the body are scanned for
// that element alone, and no further than SNIFF_LIMIT. Budgets, and the audit
// of allowed calls, stay with the dispatcher, once the parameters are read.
import type { ServerResponse } from 'node:http';
import type { AccessControl, DocumentVerdict } from '../access';
import type { EndpointModel, OperationModel } from '../contract';
import { noteRefusal, type Binding, type CallRecord } from './call-record';
import { parseMediaType } from './media-type';
import type { BodyGate } from './read-body';
import { sendAccessRefusal } from './respond';
import { createBodyElementSniffer } from './soap/body-element-sniffer';
import type { SoapRouter } from './soap/router';

/** How far into a SOAP body the gate looks for the body element before deciding by the endpoint's rules. */
export const SNIFF_LIMIT = 64 * 1024;

export type PreBodyAccess = Pick<AccessControl, 'admit' | 'admitEndpoint' | 'endpointOpen'>;

export interface GateRequest {
  readonly headers: { readonly [name: string]: string | string[] | undefined };
  readonly address: string | null;
  /** The request's record, where a refusal is noted. */
  readonly record: CallRecord;
  readonly res: ServerResponse;
}

interface Refusing extends GateRequest {
  /** The SOAP version the Content-Type declares, noted with a refusal (the envelope is never read). */
  readonly binding?: Binding;
}

/** The gate of an HTTP GET or POST to `/X.asmx/Op`; undefined when there is nothing to decide before the parameters. */
export function httpOperationGate(
  access: PreBodyAccess,
  endpoint: EndpointModel,
  operationName: string,
  request: GateRequest,
): BodyGate | undefined {
  if (access.endpointOpen(endpoint.name)) return undefined;
  const operation = endpoint.operations.find((op) => op.wireName === operationName);
  // An unknown operation is answered by the binding (ASMX's error), whoever asks.
  if (operation === undefined) return undefined;
  return {
    inspect: () => 'decide',
    decide: () => applyVerdict(access.admit(operation, request.address, authorizationOf(request)), operation, request),
  };
}

/** The gate of a SOAP POST to `/X.asmx`; undefined when there is nothing to decide before the body. */
export function soapGate(
  access: PreBodyAccess,
  endpoint: EndpointModel,
  router: SoapRouter,
  request: GateRequest,
): BodyGate | undefined {
  if (access.endpointOpen(endpoint.name)) return undefined;
  const media = parseMediaType(header(request, 'content-type'));
  const declared = media.type === 'application/soap+xml' ? '1.2' : '1.1';
  const refusing: Refusing = { ...request, binding: declared === '1.1' ? 'soap11' : 'soap12' };
  let operation = router.byHeaders(declared, {
    soapActionHeader: header(request, 'soapaction'),
    actionParameter: media.parameters.get('action'),
  });
  const sniffer = operation === undefined ? createBodyElementSniffer(media.parameters.get('charset')) : null;
  return {
    inspect(chunk, sizeSoFar) {
      if (sniffer === null) return 'decide';
      const seen = sniffer.write(chunk);
      if (seen.found) {
        operation = router.byElement(seen.namespace, seen.localName);
        return 'decide';
      }
      return seen.done || sizeSoFar >= SNIFF_LIMIT ? 'decide' : undefined;
    },
    decide() {
      const known = operation;
      if (known !== undefined)
        return applyVerdict(access.admit(known, request.address, authorizationOf(request)), known, refusing);
      // No operation named (a metadata request, a body without a known element): the endpoint's rules as a whole.
      return applyVerdict(
        access.admitEndpoint(endpoint.name, request.address, authorizationOf(request)),
        null,
        refusing,
      );
    },
  };
}

function applyVerdict(
  verdict: DocumentVerdict | Promise<DocumentVerdict>,
  operation: OperationModel | null,
  request: Refusing,
): boolean | Promise<boolean> {
  const apply = (refusal: DocumentVerdict): boolean => {
    if (refusal === null) return true;
    if (request.binding !== undefined) request.record.binding = request.binding;
    const reason = refusal.kind === 'forbidden' ? 'network' : 'auth';
    if (operation !== null) noteRefusal(request.record, operation.wireName, reason);
    else Object.assign(request.record, { outcome: 'client_fault', fault: `access_${reason}` });
    // The rest of the body is not read: the connection closes after the answer.
    request.res.setHeader('Connection', 'close');
    sendAccessRefusal(request.res, refusal);
    return false;
  };
  return verdict instanceof Promise ? verdict.then(apply) : apply(verdict);
}

function authorizationOf(request: GateRequest): string | undefined {
  return header(request, 'authorization');
}

function header(request: GateRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
