// string (GetTokenDevice): in SOAP a null string is left out (minOccurs=0,
// not nillable) and an empty one self-closed; over HTTP GET/POST a null is
// `xsi:nil="true"` on the root `string`.
import { escapeText } from '../../shared/markup';
import { XML_DECLARATION_CRLF, XSD_XSI, type ResultTypeModule } from './result-type';

const ROOT = 'string';

export const STRING_RESULT: ResultTypeModule<'string'> = {
  type: 'string',
  httpRoot: ROOT,
  soapWriter({ open, close, resultElement }) {
    const omitted = `${open} />`;
    const empty = `${open}><${resultElement} />${close}`;
    const start = `${open}><${resultElement}>`;
    const end = `</${resultElement}>${close}`;
    return (head, value, tail) => {
      if (value === null || value === undefined) return head + omitted + tail;
      const text = String(value);
      return head + (text === '' ? empty : start + escapeText(text) + end) + tail;
    };
  },
  httpWriter(ns) {
    const nil = `${XML_DECLARATION_CRLF}<${ROOT} ${XSD_XSI} xsi:nil="true" ${ns} />`;
    const empty = `${XML_DECLARATION_CRLF}<${ROOT} ${ns} />`;
    const open = `${XML_DECLARATION_CRLF}<${ROOT} ${ns}>`;
    const close = `</${ROOT}>`;
    return (value) => {
      if (value === null || value === undefined) return nil;
      const text = String(value);
      return text === '' ? empty : open + escapeText(text) + close;
    };
  },
  sampleValue: (slot) => slot,
};
