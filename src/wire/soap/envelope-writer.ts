// Writes SOAP answers byte for byte as ASMX does: one line, prefix `soap` in
// both versions, `xsi` and `xsd` declared on the envelope, payload in the
// service namespace as the default namespace.
import type { OperationModel, StudentInfo } from '../../contract';
import { writeStudentInfoChunks, type Chunks, type ItemLayout } from '../student-info-writer';
import { escapeAttribute, escapeText } from '../xml-text';
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
const LAYOUT: ItemLayout = { itemOpen: '<StudentInfo>', fieldPrefix: '', itemClose: '</StudentInfo>' };

/** A response writer for one operation, with its constant parts built once. */
export interface ResponseWriter {
  /** The whole envelope: a string, or UTF-8 chunks for a list (see student-info-writer.ts). */
  write(version: SoapVersion, value: unknown): string | Chunks;
}

export function createResponseWriter(operation: OperationModel, namespace: string): ResponseWriter {
  const open = `<${operation.responseElement} xmlns="${escapeAttribute(namespace)}"`;
  const empty = `${open} />`;
  const close = `</${operation.responseElement}>`;
  const resultOpen = `<${operation.resultElement}>`;
  const resultClose = `</${operation.resultElement}>`;
  const resultEmpty = `<${operation.resultElement} />`;

  const payload = (value: unknown): string => {
    if (operation.result === 'string' && value !== null && value !== undefined) {
      const text = String(value);
      return text === '' ? `${open}>${resultEmpty}${close}` : `${open}>${resultOpen}${escapeText(text)}${resultClose}${close}`;
    }
    if (operation.result === 'ArrayOfStudentInfo') return `${open}>${resultEmpty}${close}`;
    // Void, or a null string: minOccurs=0 and not nillable, so the result is omitted.
    return empty;
  };

  return {
    write(version, value) {
      if (operation.result === 'ArrayOfStudentInfo') {
        const items = value as readonly StudentInfo[];
        if (items.length > 0) {
          return writeStudentInfoChunks(`${BODY_START[version]}${open}>${resultOpen}`, items, LAYOUT, `${resultClose}${close}${BODY_END}`);
        }
      }
      return BODY_START[version] + payload(value) + BODY_END;
    },
  };
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
