// Reads a SOAP request in one pass, as a plain envelope (plain-envelope.ts)
// or else with saxes (namespace-aware, strict, no DTD): the envelope version, the headers that must be understood, the first
// Body element and its direct children. Choosing the operation and reading
// parameters by name is the router's job; this only reads XML.
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { echoed } from '../../shared/echo';
import { readPlainEnvelope, type EnvelopeEvents, type PlainTag } from './plain-envelope';
import { ENVELOPE_NS, versionOfEnvelope, type SoapVersion } from './version';

const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

/**
 * The deepest element a request may nest, the Envelope counting 1 (a call
 * needs 4: Envelope, Body, operation, parameter). saxes resolves a namespace
 * by walking up every open element, so reading n nested elements costs n²:
 * 16,000 levels blocked the process for seconds. The depth is checked as each
 * tag starts, before that walk, and the read stops there (docs/operating.md).
 */
export const DEFAULT_MAX_XML_DEPTH = 64;

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
    super(
      `Possible SOAP version mismatch: Envelope namespace ${echoed(namespace)} was unexpected. Expecting ${ENVELOPE_NS['1.1']}.`,
    );
  }
}

interface Collecting {
  namespace: string;
  localName: string;
  nil: boolean;
  line: number;
  column: number;
  /** The pieces of text so far, joined as they come: most elements have one. */
  text: string;
}

/**
 * What one read learns, reset before each; it is also the handler both
 * readers report to (plain-envelope.ts, saxes), as methods of one object
 * rather than closures made for every read (docs/benchmark.md#fifth-round-the-soap-binding).
 */
class ReadState implements EnvelopeEvents {
  constructor(readonly maxDepth = DEFAULT_MAX_XML_DEPTH) {}
  version: SoapVersion | null = null;
  envelopeNs = '';
  mustUnderstand: string[] = [];
  hasBody = false;
  bodyElement: SoapRequest['bodyElement'] = null;
  children: ChildElement[] = [];
  // Depth of the element being opened: 1 Envelope, 2 Header/Body, 3 entries, 4 parameters.
  depth = 0;
  section: 'none' | 'header' | 'body' | 'other' = 'none';
  inFirstBodyElement = false;
  current: Collecting | null = null;

  open(tag: PlainTag, line: number, column: number): void {
    this.depth++;
    const namespace = tag.uri;
    if (this.depth === 1) {
      this.version = versionOfEnvelope(namespace);
      if (this.version === null || tag.local !== 'Envelope') throw new EnvelopeVersionError(namespace);
      this.envelopeNs = namespace;
      return;
    }
    if (this.depth === 2) {
      if (namespace === this.envelopeNs && tag.local === 'Header') this.section = 'header';
      else if (namespace === this.envelopeNs && tag.local === 'Body') {
        this.section = 'body';
        this.hasBody = true;
      } else this.section = 'other';
      return;
    }
    if (this.depth === 3) {
      if (this.section === 'header' && isMustUnderstand(tag, this.envelopeNs)) this.mustUnderstand.push(tag.local);
      if (this.section === 'body' && this.bodyElement === null) {
        this.bodyElement = { namespace, localName: tag.local };
        this.inFirstBodyElement = true;
      }
      return;
    }
    if (this.depth === 4 && this.inFirstBodyElement) {
      this.current = { namespace, localName: tag.local, nil: isNil(tag), line, column: column + 1, text: '' };
    }
  }

  text(text: string): void {
    if (this.current !== null) this.current.text += text;
  }

  close(): void {
    const current = this.current;
    if (this.depth === 4 && current !== null) {
      this.children.push({
        namespace: current.namespace,
        localName: current.localName,
        text: current.text,
        nil: current.nil,
        line: current.line,
        column: current.column,
      });
      this.current = null;
    } else if (this.depth === 3) {
      this.inFirstBodyElement = false;
    } else if (this.depth === 2) {
      this.section = 'none';
    }
    this.depth--;
  }
}

interface Reader {
  readonly parser: SaxesParser<{ xmlns: true; position: true }>;
  events: EnvelopeEvents;
  maxDepth: number;
  depth: () => number;
}

function createReader(): Reader {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const reader: Reader = { parser, events: IDLE_STATE, maxDepth: DEFAULT_MAX_XML_DEPTH, depth: () => 0 };

  parser.on('doctype', () => {
    throw new XmlReadError('DTD is prohibited in this XML document.');
  });

  // Fires once a tag's name is read, before its attributes and namespaces are.
  parser.on('opentagstart', () => {
    if (reader.depth() >= reader.maxDepth) {
      throw new XmlReadError(
        `There is an error in XML document (${parser.line}, ${parser.column}). ---> Elements are nested deeper than ${reader.maxDepth} levels.`,
      );
    }
  });
  parser.on('opentag', (tag: SaxesTagNS) =>
    reader.events.open(
      { uri: tag.uri ?? '', local: tag.local, attributes: tag.attributes },
      parser.line,
      parser.column,
    ),
  );
  parser.on('text', (text) => reader.events.text(text));
  parser.on('cdata', (text) => reader.events.text(text));
  parser.on('closetag', () => reader.events.close());
  return reader;
}

// One parser serves every read: a read is synchronous, and saxes resets
// itself after a document it closed. Building one per request was a
// measurable share of a small call. A read that failed leaves the parser
// mid-document, so it is dropped and the next read builds a new one.
let idle: Reader | null = null;
const IDLE_STATE = new ReadState();

/**
 * Reads a request: first as a plain envelope (plain-envelope.ts), the shape
 * clients send, without saxes; anything else, or anything wrong, with saxes.
 */
export function readSoapRequest(xml: string, maxDepth = DEFAULT_MAX_XML_DEPTH): SoapRequest {
  if (xml.trim() === '') throw new XmlReadError('Root element is missing.');
  const plain = new ReadState(maxDepth);
  if (readPlainEnvelope(xml, maxDepth, plain)) return resultOf(plain);
  return readWithSaxes(xml, maxDepth);
}

/** Reads a request with saxes alone (the plain reader's fallback; its tests compare the two). */
export function readWithSaxes(xml: string, maxDepth = DEFAULT_MAX_XML_DEPTH): SoapRequest {
  if (xml.trim() === '') throw new XmlReadError('Root element is missing.');

  const reader = idle ?? createReader();
  idle = null;
  const state = new ReadState(maxDepth);
  reader.events = state;
  reader.maxDepth = maxDepth;
  reader.depth = () => state.depth;
  try {
    reader.parser.write(xml).close();
  } catch (err) {
    if (err instanceof XmlReadError || err instanceof EnvelopeVersionError) throw err;
    throw new XmlReadError(describeSaxesError(err));
  }
  // Let go of this request's values (they may hold a phone number or a code) until the next read.
  reader.events = IDLE_STATE;
  reader.depth = () => 0;
  idle = reader;
  return resultOf(state);
}

function resultOf(state: ReadState): SoapRequest {
  if (state.version === null) throw new XmlReadError('Root element is missing.');
  return {
    version: state.version,
    mustUnderstand: state.mustUnderstand,
    hasBody: state.hasBody,
    bodyElement: state.bodyElement,
    children: state.children,
  };
}

function isMustUnderstand(tag: PlainTag, envelopeNs: string): boolean {
  return isTrueAttribute(tag, envelopeNs, 'mustUnderstand');
}

function isNil(tag: PlainTag): boolean {
  return isTrueAttribute(tag, XSI, 'nil');
}

/** An xsd:boolean attribute (`1` or `true`, spaces around allowed) in the given namespace; absent is false. */
function isTrueAttribute(tag: PlainTag, uri: string, local: string): boolean {
  for (const attribute of Object.values(tag.attributes)) {
    if (attribute.uri === uri && attribute.local === local) {
      const value = attribute.value.trim();
      return value === '1' || value === 'true';
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
