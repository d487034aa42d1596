// Reads a SOAP request in one pass with saxes (namespace-aware, strict, no
// DTD): the envelope version, the headers that must be understood, the first
// Body element and its direct children. Choosing the operation and reading
// parameters by name is the router's job; this only reads XML.
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { ENVELOPE_NS, versionOfEnvelope, type SoapVersion } from './version';

const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

export interface ChildElement {
  readonly namespace: string;
  readonly localName: string;
  /** All text inside the element, CDATA included, exactly as sent. */
  readonly text: string;
  readonly nil: boolean;
  /** Where the element's content starts, for error messages as XmlSerializer writes them. */
  readonly line: number;
  readonly column: number;
}

export interface SoapRequest {
  readonly version: SoapVersion;
  /** Local names of header entries marked mustUnderstand. */
  readonly mustUnderstand: readonly string[];
  readonly hasBody: boolean;
  readonly bodyElement: { readonly namespace: string; readonly localName: string } | null;
  /** Direct children of the body element, in document order. */
  readonly children: readonly ChildElement[];
}

/** The request is not XML we can read: answered with HTTP 400. */
export class XmlReadError extends Error {
  override readonly name = 'XmlReadError';
}

/** The root is not a SOAP 1.1 or 1.2 envelope. */
export class EnvelopeVersionError extends Error {
  override readonly name = 'EnvelopeVersionError';
  constructor(readonly namespace: string) {
    super(`Possible SOAP version mismatch: Envelope namespace ${namespace} was unexpected. Expecting ${ENVELOPE_NS['1.1']}.`);
  }
}

interface Collecting {
  namespace: string;
  localName: string;
  nil: boolean;
  line: number;
  column: number;
  text: string[];
}

export function readSoapRequest(xml: string): SoapRequest {
  if (xml.trim() === '') throw new XmlReadError('Root element is missing.');

  const parser = new SaxesParser({ xmlns: true, position: true });
  let version: SoapVersion | null = null;
  let envelopeNs = '';
  const mustUnderstand: string[] = [];
  let hasBody = false;
  let bodyElement: SoapRequest['bodyElement'] = null;
  const children: ChildElement[] = [];

  // Depth of the element being opened: 1 Envelope, 2 Header/Body, 3 entries, 4 parameters.
  let depth = 0;
  let section: 'none' | 'header' | 'body' | 'other' = 'none';
  let inFirstBodyElement = false;
  let current: Collecting | null = null;

  parser.on('doctype', () => {
    throw new XmlReadError('DTD is prohibited in this XML document.');
  });

  parser.on('opentag', (tag: SaxesTagNS) => {
    depth++;
    const namespace = tag.uri ?? '';
    if (depth === 1) {
      version = versionOfEnvelope(namespace);
      if (version === null || tag.local !== 'Envelope') throw new EnvelopeVersionError(namespace);
      envelopeNs = namespace;
      return;
    }
    if (depth === 2) {
      if (namespace === envelopeNs && tag.local === 'Header') section = 'header';
      else if (namespace === envelopeNs && tag.local === 'Body') {
        section = 'body';
        hasBody = true;
      } else section = 'other';
      return;
    }
    if (depth === 3) {
      if (section === 'header' && isMustUnderstand(tag, envelopeNs)) mustUnderstand.push(tag.local);
      if (section === 'body' && bodyElement === null) {
        bodyElement = { namespace, localName: tag.local };
        inFirstBodyElement = true;
      }
      return;
    }
    if (depth === 4 && inFirstBodyElement) {
      current = { namespace, localName: tag.local, nil: isNil(tag), line: parser.line, column: parser.column + 1, text: [] };
    }
  });

  const collect = (text: string) => {
    if (current !== null) current.text.push(text);
  };
  parser.on('text', collect);
  parser.on('cdata', collect);

  parser.on('closetag', () => {
    if (depth === 4 && current !== null) {
      const { text, ...rest } = current;
      children.push({ ...rest, text: text.join('') });
      current = null;
    } else if (depth === 3) {
      inFirstBodyElement = false;
    } else if (depth === 2) {
      section = 'none';
    }
    depth--;
  });

  try {
    parser.write(xml).close();
  } catch (err) {
    if (err instanceof XmlReadError || err instanceof EnvelopeVersionError) throw err;
    throw new XmlReadError(describeSaxesError(err));
  }
  if (version === null) throw new XmlReadError('Root element is missing.');
  return { version, mustUnderstand, hasBody, bodyElement, children };
}

function isMustUnderstand(tag: SaxesTagNS, envelopeNs: string): boolean {
  for (const attribute of Object.values(tag.attributes)) {
    if (attribute.uri === envelopeNs && attribute.local === 'mustUnderstand') {
      const value = attribute.value.trim();
      return value === '1' || value === 'true';
    }
  }
  return false;
}

function isNil(tag: SaxesTagNS): boolean {
  for (const attribute of Object.values(tag.attributes)) {
    if (attribute.uri === XSI && attribute.local === 'nil') {
      const value = attribute.value.trim();
      return value === 'true' || value === '1';
    }
  }
  return false;
}

/** saxes says `3:14: unclosed tag: x`; XmlSerializer says `There is an error in XML document (3, 14).` with the reason after. */
function describeSaxesError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const match = /^(?:[^:]*:)?(\d+):(\d+): (.*)$/s.exec(message);
  if (match === null) return message;
  return `There is an error in XML document (${match[1]}, ${match[2]}). ---> ${capitalise(match[3])}.`;
}

function capitalise(text: string): string {
  const trimmed = text.replace(/\.$/, '');
  return trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
}
