// POST /X.asmx: a SOAP 1.1 or 1.2 call, answered in the version of the
// request's envelope. Only translates: wire to call, result to wire.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EndpointModel, OperationModel, WireOperationName } from '../../contract';
import type { Dispatcher, Failed, Outcome, WireCall } from '../dispatch';
import { decodeBody, parseMediaType } from '../media-type';
import { CACHE_ERROR, CACHE_RESULT, send, sendAccessRefusal, sendText } from '../respond';
import type { Chunks } from '../results';
import { echoed } from '../../shared/echo';
import { EnvelopeVersionError, XmlReadError, readSoapRequest } from './envelope-reader';
import { createResponseWriter, writeFault } from './envelope-writer';
import { clientFault, serverFault, type SoapFault } from './fault';
import { createSoapRouter, readParameters } from './router';
import { CONTENT_TYPE, type SoapVersion } from './version';

const SOAP_MEDIA_TYPES: ReadonlyMap<string, SoapVersion> = new Map([
  ['text/xml', '1.1'],
  ['application/soap+xml', '1.2'],
]);

/** Answers at once when the operation did (a promise otherwise: docs/benchmark.md#fourth-round). */
export type SoapHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  call: WireCall,
) => void | Promise<void>;

type Enveloped = { readonly ok: true; readonly envelope: string | Chunks } | Failed;

/** Calls one operation and writes its answer as an envelope of `version`, or says why there is none. */
type SoapCall = (
  values: readonly (string | null)[],
  call: WireCall,
  version: SoapVersion,
) => Enveloped | Promise<Enveloped>;

/** The call of one operation with the writer of its result type: both typed by the operation, so its answer reaches the writer as it is. */
function soapCall<K extends WireOperationName>(
  operation: OperationModel<K>,
  namespace: string,
  dispatcher: Dispatcher,
): SoapCall {
  const writer = createResponseWriter(operation, namespace);
  const envelope = (outcome: Outcome<K>, version: SoapVersion): Enveloped =>
    outcome.ok ? { ok: true, envelope: writer.write(version, outcome.value) } : outcome;
  return (values, call, version) => {
    const outcome = dispatcher.invoke(operation, values, call);
    return outcome instanceof Promise
      ? outcome.then((settled) => envelope(settled, version))
      : envelope(outcome, version);
  };
}

export function createSoapHandler(endpoint: EndpointModel, dispatcher: Dispatcher, maxXmlDepth: number): SoapHandler {
  const router = createSoapRouter(endpoint);
  const calls = new Map<string, SoapCall>(
    endpoint.operations.map((op) => [op.wireName, soapCall(op, endpoint.namespace, dispatcher)]),
  );

  const fault = (res: ServerResponse, version: SoapVersion, f: SoapFault, cache = CACHE_ERROR) =>
    send(res, f.status, CONTENT_TYPE[version], writeFault(version, f), cache);

  /** The operation's answer, or why there is none, written as the call's answer. */
  const answer = (res: ServerResponse, version: SoapVersion, call: WireCall, outcome: Enveloped): void => {
    if (outcome.ok) {
      send(res, 200, CONTENT_TYPE[version], outcome.envelope, CACHE_RESULT, call.record.answerTap);
    } else if (outcome.kind === 'forbidden' || outcome.kind === 'unauthorized') {
      sendAccessRefusal(res, outcome);
    } else if (outcome.kind === 'throttled' || outcome.kind === 'client') {
      // A limit's refusal, the policy's or an operation's own, says when to try again.
      if (outcome.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(outcome.retryAfterSeconds));
      fault(res, version, clientFault(outcome.message), CACHE_RESULT);
    } else {
      fault(res, version, serverFault(`Server was unable to process request. ---> ${outcome.message}`), CACHE_RESULT);
    }
  };

  return (req, res, body, call) => {
    const media = parseMediaType(req.headers['content-type']);
    const declared = SOAP_MEDIA_TYPES.get(media.type);
    if (declared === undefined) {
      sendText(
        res,
        415,
        `Unsupported Media Type: a SOAP request needs Content-Type text/xml (SOAP 1.1) or application/soap+xml (SOAP 1.2), not '${echoed(media.type)}'.`,
      );
      return;
    }
    const xml = decodeBody(body, media);
    if (xml === null) {
      sendText(
        res,
        415,
        `Unsupported Media Type: the charset '${echoed(media.parameters.get('charset') ?? '')}' cannot be read.`,
      );
      return;
    }

    let request;
    try {
      request = readSoapRequest(xml, maxXmlDepth);
    } catch (err) {
      if (err instanceof EnvelopeVersionError) {
        fault(res, '1.1', { code: 'VersionMismatch', message: err.message, status: 500, detail: true, upgrade: true });
        return;
      }
      const reason = err instanceof XmlReadError ? err.message : 'The request could not be read.';
      fault(res, declared, clientFault(`Server was unable to read request. ---> ${reason}`, 400));
      return;
    }
    const version = request.version;
    call.record.binding = version === '1.1' ? 'soap11' : 'soap12';
    if (version === '1.1' && declared === '1.2') {
      sendText(res, 415, 'Unsupported Media Type: a SOAP 1.1 envelope must be sent as text/xml.');
      return;
    }
    if (request.mustUnderstand.length > 0) {
      // Checked once the method is chosen, after ASMX sets an invoked method's cache policy.
      fault(
        res,
        version,
        {
          code: 'MustUnderstand',
          message: `SOAP header ${request.mustUnderstand[0]} was not understood.`,
          status: 500,
          detail: false,
        },
        CACHE_RESULT,
      );
      return;
    }
    if (!request.hasBody) {
      fault(res, version, clientFault('Request format is invalid: Missing required soap:Body element.'));
      return;
    }

    const soapAction = req.headers['soapaction'];
    const routed = router.route(request, {
      soapActionHeader: Array.isArray(soapAction) ? soapAction[0] : soapAction,
      actionParameter: media.parameters.get('action'),
    });
    if ('fault' in routed) {
      fault(res, version, routed.fault);
      return;
    }
    const operation = routed.operation;
    // Noted as soon as it is known, so that a call refused before it ran still counts under it.
    call.record.operation = operation.wireName;
    const values = readParameters(operation, endpoint.namespace, request);
    if (!Array.isArray(values)) {
      fault(res, version, values);
      return;
    }

    const callOperation = calls.get(operation.wireName);
    if (callOperation === undefined)
      throw new Error(`unreachable: ${operation.wireName} is not an operation of ${endpoint.name}`);
    const outcome = callOperation(values, call, version);
    if (outcome instanceof Promise) return outcome.then((settled) => answer(res, version, call, settled));
    answer(res, version, call, outcome);
  };
}
