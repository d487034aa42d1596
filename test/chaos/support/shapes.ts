// The answers the service documents (docs/service.md#wire-rules-worth-knowing, test/wire/), as
// shapes: status, content type and the form of the body. An answer that fits
// none of them, or that shows a stack trace or a path, is a defect.
import type { Answered } from './raw-client';
import { header } from './raw-client';

export type Shape =
  | 'soap-answer'
  | 'soap-fault'
  | 'http-result'
  | 'void'
  | 'wsdl'
  | 'disco'
  | 'help-page'
  | 'text-error'
  /** /healthz and /readyz (docs/operating.md). */
  | 'health'
  /** OPTIONS on an operator route (/healthz, /readyz, /metrics): the router's list of methods. */
  | 'options'
  /** Node's HTTP parser refusing bytes that are not HTTP at all: no body, connection closed. */
  | 'parser-refusal';

const XML_DECL = '<?xml version="1.0" encoding="utf-8"?>';
const SOAP_TYPES = new Set(['text/xml; charset=utf-8', 'application/soap+xml; charset=utf-8']);
/** ASMX's plain-text refusals: GET/POST errors (500), and the transport's 400, 404, 405, 408, 411, 413, 414, 415, 431, 503. */
const TEXT_STATUSES = new Set([400, 404, 405, 408, 411, 413, 414, 415, 431, 500, 503]);
const PARSER_STATUSES = new Set([400, 408, 413, 414, 431]);
const ENVELOPE =
  /^<\?xml version="1\.0" encoding="utf-8"\?><soap:Envelope xmlns:soap="(http:\/\/schemas\.xmlsoap\.org\/soap\/envelope\/|http:\/\/www\.w3\.org\/2003\/05\/soap-envelope)"[^>]*>(?:<soap:Header>.*<\/soap:Header>)?<soap:Body>(.*)<\/soap:Body><\/soap:Envelope>$/s;
const FAULT_CODE =
  /<faultcode>soap:(Client|Server|VersionMismatch|MustUnderstand)<\/faultcode>|<soap:Code><soap:Value>soap:(Sender|Receiver|VersionMismatch|MustUnderstand)<\/soap:Value>/;

export interface Classified {
  readonly shape: Shape | null;
  /** soap:Client / soap:Sender (the caller's mistake) or soap:Server / soap:Receiver. */
  readonly faultCode?: string;
  /** Why it fits no shape. */
  readonly problem?: string;
}

export function classify(answer: Answered): Classified {
  const type = header(answer, 'content-type');
  const body = answer.body.toString('utf8');
  if (type === undefined) {
    if (answer.status === 200 && answer.body.length === 0) return { shape: 'void' };
    const closes = /close/i.test(header(answer, 'connection') ?? '');
    if (PARSER_STATUSES.has(answer.status) && answer.body.length === 0 && closes) return { shape: 'parser-refusal' };
    return { shape: null, problem: `status ${answer.status} without a content type` };
  }
  if (SOAP_TYPES.has(type)) {
    if (body.startsWith(`${XML_DECL}\r\n`)) {
      if (answer.status !== 200) return { shape: null, problem: `XML document with status ${answer.status}` };
      if (/^<\?xml[^>]*>\r\n<(string|ArrayOfStudentInfo) [^>]*(\/>|>.*<\/\1>)$/s.test(body))
        return { shape: 'http-result' };
      if (/^<\?xml[^>]*>\r\n<wsdl:definitions .*<\/wsdl:definitions>\s*$/s.test(body)) return { shape: 'wsdl' };
      if (/^<\?xml[^>]*>\r\n<discovery .*<\/discovery>\s*$/s.test(body)) return { shape: 'disco' };
      return { shape: null, problem: 'an XML document of no known kind' };
    }
    const envelope = ENVELOPE.exec(body);
    if (envelope === null) return { shape: null, problem: 'not a SOAP envelope' };
    const soap12 = envelope[1].includes('2003/05');
    if (soap12 !== type.startsWith('application/soap+xml'))
      return { shape: null, problem: 'envelope version and content type disagree' };
    if (envelope[2].startsWith('<soap:Fault>')) {
      const code = FAULT_CODE.exec(envelope[2]);
      if (code === null) return { shape: null, problem: 'a fault without a known code' };
      if (answer.status !== 500 && answer.status !== 400)
        return { shape: null, problem: `fault with status ${answer.status}` };
      return { shape: 'soap-fault', faultCode: code[1] ?? code[2] };
    }
    if (answer.status !== 200) return { shape: null, problem: `SOAP answer with status ${answer.status}` };
    return /^<(\w+)Response xmlns="[^"]*"(\s*\/>|>.*<\/\1Response>)$/s.test(envelope[2])
      ? { shape: 'soap-answer' }
      : { shape: null, problem: 'a SOAP body of no known kind' };
  }
  if (type === 'text/plain' && answer.status === 200 && header(answer, 'allow') === body && /^[A-Z, ]+$/.test(body))
    return { shape: 'options' };
  if (type === 'application/health+json; charset=utf-8') {
    return (answer.status === 200 || answer.status === 503) && /^\{"status":"(pass|fail)"/.test(body)
      ? { shape: 'health' }
      : { shape: null, problem: 'a health answer of no known kind' };
  }
  if (type === 'text/html; charset=utf-8') {
    return answer.status === 200 && body.startsWith('<!DOCTYPE html>') && body.trimEnd().endsWith('</html>')
      ? { shape: 'help-page' }
      : { shape: null, problem: `HTML with status ${answer.status}` };
  }
  if (type === 'text/plain; charset=utf-8') {
    if (!TEXT_STATUSES.has(answer.status)) return { shape: null, problem: `plain text with status ${answer.status}` };
    // ASMX's texts are one CRLF-ended line, except an ArgumentException's, which names its parameter
    // on a second, and those that echo a value the caller sent (which may hold line breaks itself).
    return /^[^\r\n][\s\S]*\r\n$/.test(body) && !/<html/i.test(body)
      ? { shape: 'text-error' }
      : { shape: null, problem: 'plain text that is not CRLF-ended lines' };
  }
  return { shape: null, problem: `content type ${type}` };
}

/** Marks of an internal detail: a stack frame, a source file and line, a module path, this machine's folders. */
export function leakIn(answer: Answered, folders: readonly string[]): string | null {
  const text = `${answer.headers.map(([name, value]) => `${name}: ${value}`).join('\n')}\n${answer.body.toString('utf8')}`;
  const marks: Array<[string, RegExp]> = [
    ['a stack frame', /\bat [\w$.<>]+ \(|\n\s+at \S/],
    ['a source position', /\.(?:[cm]?js|ts):\d+(?::\d+)?\b/],
    ['node_modules', /node_modules/],
    ['an internal error name', /\b(?:TypeError|ReferenceError|RangeError|SyntaxError|SqliteError|DatabaseError)\b/],
    ['a file URL', /file:\/\//],
  ];
  for (const [what, pattern] of marks) if (pattern.test(text)) return what;
  for (const folder of folders) if (text.includes(folder)) return `the folder ${folder}`;
  return null;
}
