// Writes SOAP answers byte for byte as ASMX does: one line, prefix `soap` in
// both versions, `xsi` and `xsd` declared on the envelope, payload in the
// service namespace as the default namespace.
import type { OperationModel, ResultTypeOf, ResultValues, WireOperationName } from '../../contract';
import { RESULT_TYPES, type Chunks } from '../results';
import { escapeAttribute, escapeText } from '../../shared/markup';
import { faultCodeName, type SoapFault } from './fault';
import { ENVELOPE_NS, type SoapVersion } from './version';

const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
const XSD = 'http://www.w3.org/2001/XMLSchema';

function envelopeStart(version: SoapVersion): string {
  return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${ENVELOPE_NS[version]}" xmlns:xsi="${XSI}" xmlns:xsd="${XSD}">`;
}

const BODY_START: Readonly<Record<SoapVersion, string>> = {
  '1.1': envelopeStart('1.1') + '<soap:Body>',
  '1.2': envelopeStart('1.2') + '<soap:Body>',
};
const BODY_END = '</soap:Body></soap:Envelope>';

/** A response writer for operation `K`, with its constant parts built once; it takes what the operation answers. */
export interface ResponseWriter<K extends WireOperationName> {
  /** The whole envelope: a string, or UTF-8 chunks for a long list (src/wire/results/chunks.ts). */
  readonly write: (version: SoapVersion, value: ResultValues[ResultTypeOf[K]]) => string | Chunks;
}

/** Built on the writer of the operation's result type, found in the registry keyed by result type. */
export function createResponseWriter<K extends WireOperationName>(
  operation: OperationModel<K>,
  namespace: string,
): ResponseWriter<K> {
  const writeValue = RESULT_TYPES[operation.result].soapWriter({
    open: `<${operation.responseElement} xmlns="${escapeAttribute(namespace)}"`,
    close: `</${operation.responseElement}>`,
    resultElement: operation.resultElement,
  });
  return { write: (version, value) => writeValue(BODY_START[version], value, BODY_END) };
}

const UPGRADE_HEADER =
  '<soap:Header><soap12:Upgrade xmlns:soap12="http://www.w3.org/2003/05/soap-envelope">' +
  '<soap12:SupportedEnvelope qname="soap:Envelope" xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" />' +
  '<soap12:SupportedEnvelope qname="soap12:Envelope" xmlns:soap12="http://www.w3.org/2003/05/soap-envelope" />' +
  '</soap12:Upgrade></soap:Header>';

export function writeFault(version: SoapVersion, fault: SoapFault): string {
  const text = escapeText(fault.message);
  const code = faultCodeName(fault.code, version);
  const body =
    version === '1.1'
      ? `<soap:Fault><faultcode>${code}</faultcode><faultstring>${text}</faultstring>${fault.detail ? '<detail />' : ''}</soap:Fault>`
      : `<soap:Fault><soap:Code><soap:Value>${code}</soap:Value></soap:Code><soap:Reason><soap:Text xml:lang="en">${text}</soap:Text></soap:Reason>${fault.detail ? '<soap:Detail />' : ''}</soap:Fault>`;
  return envelopeStart(version) + (fault.upgrade ? UPGRADE_HEADER : '') + '<soap:Body>' + body + BODY_END;
}
