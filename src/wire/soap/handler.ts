// POST /X.asmx: a SOAP 1.1 or 1.2 call, answered in the version of the
// request's envelope. Only translates: wire to call, result to wire.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EndpointModel } from '../../contract';
import type { CallContext } from '../../operations';
import { noteBinding, noteOperation } from '../call-record';
import type { Dispatcher } from '../dispatch';
import { decodeBody, parseMediaType } from '../media-type';
import { CACHE_ERROR, CACHE_RESULT, send, sendAccessRefusal, sendText } from '../respond';
import { EnvelopeVersionError, XmlReadError, readSoapRequest } from './envelope-reader';
import { createResponseWriter, writeFault, type ResponseWriter } from './envelope-writer';
import { clientFault, serverFault, type SoapFault } from './fault';
import { createSoapRouter, readParameters } from './router';
import { CONTENT_TYPE, type SoapVersion } from './version';

const SOAP_MEDIA_TYPES: ReadonlyMap<string, SoapVersion> = new Map([
  ['text/xml', '1.1'],
  ['application/soap+xml', '1.2'],
]);

export type SoapHandler = (req: IncomingMessage, res: ServerResponse, body: Buffer, context: CallContext) => Promise<void>;

export function createSoapHandler(endpoint: EndpointModel, dispatcher: Dispatcher, maxXmlDepth: number): SoapHandler {
  const router = createSoapRouter(endpoint);
  const writers = new Map<string, ResponseWriter>(endpoint.operations.map((op) => [op.wireName, createResponseWriter(op, endpoint.namespace)]));

  const fault = (res: ServerResponse, version: SoapVersion, f: SoapFault, cache = CACHE_ERROR) =>
    send(res, f.status, CONTENT_TYPE[version], writeFault(version, f), cache);

  return async (req, res, body, context) => {
    const media = parseMediaType(req.headers['content-type']);
    const declared = SOAP_MEDIA_TYPES.get(media.type);
    if (declared === undefined) {
      sendText(
        res,
        415,
        `Unsupported Media Type: a SOAP request needs Content-Type text/xml (SOAP 1.1) or application/soap+xml (SOAP 1.2), not '${media.type}'.`,
      );
      return;
    }
    const xml = decodeBody(body, media);
    if (xml === null) {
      sendText(res, 415, `Unsupported Media Type: the charset '${media.parameters.get('charset') ?? ''}' cannot be read.`);
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
    noteBinding(context, version === '1.1' ? 'soap11' : 'soap12');
    if (version === '1.1' && declared === '1.2') {
      sendText(res, 415, 'Unsupported Media Type: a SOAP 1.1 envelope must be sent as text/xml.');
      return;
    }
    if (request.mustUnderstand.length > 0) {
      // Checked once the method is chosen, after ASMX sets an invoked method's cache policy.
      fault(
        res,
        version,
        { code: 'MustUnderstand', message: `SOAP header ${request.mustUnderstand[0]} was not understood.`, status: 500, detail: false },
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
    noteOperation(context, operation.wireName);
    const values = readParameters(operation, endpoint.namespace, request);
    if (!Array.isArray(values)) {
      fault(res, version, values);
      return;
    }

    const outcome = await dispatcher.invoke(operation, values, context);
    if (outcome.ok) {
      send(res, 200, CONTENT_TYPE[version], (writers.get(operation.wireName) as ResponseWriter).write(version, outcome.value));
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
}
