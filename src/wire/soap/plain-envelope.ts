// A reader for the envelopes clients actually send, in front of saxes
// (envelope-reader.ts): an optional XML declaration, then elements with
// ASCII names, namespace declarations, attributes without references, and
// text with the five named entities and character references. It reports
// the same tags, texts and positions to the same handlers saxes does, and
// gives up (returns false, before any error) at anything else: a comment,
// CDATA, a processing instruction, a DOCTYPE, a carriage return, a name or
// character outside that subset, a nesting as deep as the limit, or any
// mistake in the XML. saxes then reads the document from the start and
// answers, or words the error, as it always did. Measured on GetTokenDevice
// (docs/benchmark.md#request-path); test/unit/plain-envelope.test.ts reads
// every case both ways and compares.

/** An attribute as saxes reports it in xmlns mode. */
export interface PlainAttribute {
  readonly uri: string;
  readonly local: string;
  readonly value: string;
}

/** A start tag as saxes reports it in xmlns mode: what the handlers read of it. */
export interface PlainTag {
  readonly uri: string;
  readonly local: string;
  readonly attributes: Readonly<Record<string, PlainAttribute>>;
}

/** What the reader reports, as saxes's `opentag`, `text` and `closetag`; `column` as saxes's after the `>`. */
export interface EnvelopeEvents {
  open(tag: PlainTag, line: number, column: number): void;
  text(text: string): void;
  close(): void;
}

const XML_DECLARATION =
  /^<\?xml[ \t\n]+version[ \t\n]*=[ \t\n]*(["'])1\.0\1(?:[ \t\n]+encoding[ \t\n]*=[ \t\n]*(["'])[A-Za-z][A-Za-z0-9._-]*\2)?(?:[ \t\n]+standalone[ \t\n]*=[ \t\n]*(["'])(?:yes|no)\3)?[ \t\n]*\?>/;
// What nearly every client sends, checked before the regular expression.
const COMMON_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';
const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';
const NAMED_ENTITIES: ReadonlyMap<string, string> = new Map([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
]);

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a;
const isNameStart = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
const isNameChar = (c: number) => isNameStart(c) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e;
/** A character XML text may hold as it is: tab, line feed, and the BMP outside surrogates and U+FFFE/U+FFFF. */
const isPlainChar = (c: number) => (c >= 0x20 && c < 0xd800) || (c >= 0xe000 && c < 0xfffe) || c === 0x09 || c === 0x0a;

/** Namespace scope of one open element: its prefix bindings and default namespace. */
interface Scope {
  readonly qname: string;
  readonly prefixes: ReadonlyMap<string, string>;
  readonly defaultNs: string;
}

const ROOT_SCOPE: Scope = { qname: '', prefixes: new Map(), defaultNs: '' };

/**
 * Reads `xml` to the end, reporting to `events`, and returns true; or returns
 * false as soon as the document leaves the plain subset or is not well
 * formed (the events reported so far are then to be thrown away). Throws
 * only what `events` throw.
 */
export function readPlainEnvelope(xml: string, maxDepth: number, events: EnvelopeEvents): boolean {
  const n = xml.length;
  if (xml.indexOf('\r') !== -1) return false;
  let i = 0;
  if (xml.startsWith(COMMON_DECLARATION)) i = COMMON_DECLARATION.length;
  else if (xml.startsWith('<?')) {
    const declaration = XML_DECLARATION.exec(xml);
    if (declaration === null) return false;
    i = declaration[0].length;
  }
  while (i < n && isSpace(xml.charCodeAt(i))) i++;
  if (i >= n || xml.charCodeAt(i) !== 0x3c) return false;

  const scopes: Scope[] = [ROOT_SCOPE];
  // Line numbers are counted only where a position is reported, from the last one forward.
  let lineAt = 0;
  let line = 1;
  let lineStart = 0;
  const position = (p: number) => {
    for (let k = xml.indexOf('\n', lineAt); k !== -1 && k < p; k = xml.indexOf('\n', k + 1)) {
      line++;
      lineStart = k + 1;
    }
    lineAt = p;
    return p - lineStart + 1;
  };

  for (;;) {
    // At a '<'.
    const next = xml.charCodeAt(i + 1);
    if (next === 0x2f) {
      // An end tag.
      const start = i + 2;
      const end = nameEnd(xml, start, n);
      if (end === -1) return false;
      const scope = scopes[scopes.length - 1];
      if (end - start !== scope.qname.length || !xml.startsWith(scope.qname, start) || scopes.length === 1)
        return false;
      let k = end;
      while (k < n && isSpace(xml.charCodeAt(k))) k++;
      if (xml.charCodeAt(k) !== 0x3e) return false;
      scopes.pop();
      events.close();
      i = k + 1;
    } else {
      // A start tag; '!' (comment, CDATA, DOCTYPE) and '?' are not plain.
      if (scopes.length > maxDepth) return false;
      const parent = scopes[scopes.length - 1];
      // The tag as far as its first '>': a tag read before under the same scope is not read again.
      const gt = xml.indexOf('>', i + 1);
      // First the tag last found under this scope, compared where it stands: no slice, no hash of its text.
      const last = LAST_FOUND.get(parent);
      let start: StartTag | undefined;
      let raw: string | null = null;
      if (last !== undefined && gt - i + 1 === last.raw.length && xml.startsWith(last.raw, i)) start = last.start;
      else {
        raw = gt !== -1 && gt - i < MAX_CACHED_TAG ? xml.slice(i, gt + 1) : null;
        const kept = raw === null ? undefined : TAG_CACHE.get(parent)?.get(raw);
        if (kept !== undefined) {
          LAST_FOUND.set(parent, kept);
          start = kept.start;
        }
      }
      if (start === undefined) {
        const read = readStartTag(xml, i, n, parent);
        if (read === null) return false;
        start = read;
        if (read.cacheable && raw !== null && raw.length - 1 === read.length) remember(parent, raw, read);
      }
      const k = i + start.length;
      scopes.push(start.scope);
      const column = position(k);
      events.open(start.tag, line, column);
      if (start.closed) {
        scopes.pop();
        events.close();
      }
      i = k + 1;
    }

    if (scopes.length === 1) {
      // The root is closed: only whitespace may follow.
      while (i < n && isSpace(xml.charCodeAt(i))) i++;
      return i === n;
    }
    // Text up to the next tag.
    const lt = xml.indexOf('<', i);
    if (lt === -1) return false;
    if (lt > i) {
      const text = plainText(xml, i, lt);
      if (text === null) return false;
      events.text(text);
    }
    i = lt;
  }
}

/** A start tag read: the scope it opens, the tag as reported, and where its '>' is. */
interface StartTag {
  readonly scope: Scope;
  readonly tag: PlainTag;
  readonly closed: boolean;
  /** From its `<` to its `>`: the same in any document it is found in again. */
  readonly length: number;
  /** Only namespace declarations among its attributes: nothing of a caller's values is kept by the cache. */
  readonly cacheable: boolean;
}

/**
 * Start tags already read, by the scope they open under and their text from
 * `<` to `>`: what a tag reports depends on nothing else (its text, and the
 * prefixes and default namespace in scope, which a scope never changes once
 * made). Clients send the same envelope, Body, operation and parameter tags
 * call after call, and each is read once; a hit costs a slice and a lookup
 * where reading cost its names, attributes and namespaces
 * (docs/benchmark.md#fifth-round-the-soap-binding). Only tags whose
 * attributes are all namespace declarations are kept (never a value a caller
 * sent), and the whole cache is dropped when it reaches MAX_CACHED_TAGS, so
 * that odd documents cost memory only up to that.
 */
const TAG_CACHE = new Map<Scope, Map<string, KeptTag>>([[ROOT_SCOPE, new Map()]]);
/**
 * The kept tag last found under each scope: a client's next envelope has the
 * same tags, so the next look-up is one comparison of the text where it
 * stands instead of a slice and a hash of it, 190 characters for a usual
 * envelope's start tag (docs/benchmark.md#sixth-round-the-operations-share).
 */
const LAST_FOUND = new Map<Scope, KeptTag>();

/** A kept tag, with its text (a copy of its own) to compare where it stands. */
interface KeptTag {
  readonly raw: string;
  readonly start: StartTag;
}
const MAX_CACHED_TAGS = 512;
const MAX_CACHED_TAG = 1024;
let cachedTags = 0;

/** Keeps `read` under `parent`, when `parent` is itself a scope the cache made (or the root): never under one call's own. */
function remember(parent: Scope, raw: string, read: StartTag): void {
  const tags = TAG_CACHE.get(parent);
  if (tags === undefined) return;
  if (cachedTags >= MAX_CACHED_TAGS) {
    TAG_CACHE.clear();
    LAST_FOUND.clear();
    TAG_CACHE.set(ROOT_SCOPE, new Map());
    cachedTags = 0;
    return;
  }
  // A copy of its own: a slice would keep the whole request, with whatever it carries, as long as the cache.
  const copy = Buffer.from(raw, 'utf8').toString('utf8');
  tags.set(copy, { raw: copy, start: read });
  TAG_CACHE.set(read.scope, new Map());
  cachedTags++;
}

/** Reads a name at `from` (ASCII letters, digits, `_.-`, one colon at most); returns its end, or -1. */
function nameEnd(xml: string, from: number, n: number): number {
  if (!isNameStart(xml.charCodeAt(from))) return -1;
  let k = from + 1;
  let colon = false;
  for (; k < n; k++) {
    const c = xml.charCodeAt(k);
    if (isNameChar(c)) continue;
    if (c !== 0x3a || colon || !isNameStart(xml.charCodeAt(k + 1))) break;
    colon = true;
  }
  return k;
}

/** The start tag at `i` (a '<' not followed by '/') under `parent`, or null when it is not plain. */
function readStartTag(xml: string, i: number, n: number, parent: Scope): StartTag | null {
  const start = i + 1;
  const end = nameEnd(xml, start, n);
  if (end === -1) return null;
  const qname = xml.slice(start, end);
  // Most tags have no attribute: the lists are made for the first.
  let names: string[] | null = null;
  let values: string[] = [];
  let k = end;
  let closed = false;
  for (;;) {
    const before = k;
    while (k < n && isSpace(xml.charCodeAt(k))) k++;
    const c = xml.charCodeAt(k);
    if (c === 0x3e) break;
    if (c === 0x2f) {
      if (xml.charCodeAt(k + 1) !== 0x3e) return null;
      closed = true;
      k++;
      break;
    }
    if (k === before) return null;
    const nameStop = nameEnd(xml, k, n);
    if (nameStop === -1) return null;
    const name = xml.slice(k, nameStop);
    k = nameStop;
    while (k < n && isSpace(xml.charCodeAt(k))) k++;
    if (xml.charCodeAt(k) !== 0x3d) return null;
    k++;
    while (k < n && isSpace(xml.charCodeAt(k))) k++;
    const quote = xml.charCodeAt(k);
    if (quote !== 0x22 && quote !== 0x27) return null;
    const valueEnd = xml.indexOf(quote === 0x22 ? '"' : "'", k + 1);
    if (valueEnd === -1) return null;
    for (let v = k + 1; v < valueEnd; v++) {
      const vc = xml.charCodeAt(v);
      // References and whitespace other than spaces are normalised by saxes: left to it.
      if (vc === 0x26 || vc === 0x3c || vc === 0x09 || vc === 0x0a || !isPlainChar(vc)) return null;
    }
    if (names === null) {
      names = [];
      values = [];
    } else if (names.includes(name)) return null;
    names.push(name);
    values.push(xml.slice(k + 1, valueEnd));
    k = valueEnd + 1;
  }
  // k is at the tag's '>'.
  let prefixes = parent.prefixes;
  let defaultNs = parent.defaultNs;
  if (names === null) names = NO_NAMES;
  let cacheable = true;
  for (let a = 0; a < names.length; a++) {
    const name = names[a];
    // saxes trims a namespace name: one with spaces is left to it.
    if ((name === 'xmlns' || name.startsWith('xmlns:')) && values[a].includes(' ')) return null;
    if (name === 'xmlns') defaultNs = values[a];
    else if (name.startsWith('xmlns:')) {
      const prefix = name.slice(6);
      const uri = values[a];
      if (prefix === 'xml' || prefix === 'xmlns' || uri === '' || uri === XML_NS || uri === XMLNS_NS) return null;
      if (prefixes === parent.prefixes) prefixes = new Map(parent.prefixes);
      (prefixes as Map<string, string>).set(prefix, uri);
    } else cacheable = false;
  }
  if (defaultNs === XML_NS || defaultNs === XMLNS_NS) return null;
  const element = resolve(prefixes, qname, defaultNs);
  if (element === null) return null;
  const attributes: Record<string, PlainAttribute> = {};
  const expanded: string[] = [];
  for (let a = 0; a < names.length; a++) {
    const name = names[a];
    let attribute: { uri: string; local: string } | null;
    if (name === 'xmlns') attribute = { uri: XMLNS_NS, local: 'xmlns' };
    else if (name.startsWith('xmlns:')) attribute = { uri: XMLNS_NS, local: name.slice(6) };
    else attribute = resolve(prefixes, name, '');
    if (attribute === null) return null;
    const key = `${attribute.uri}\u0000${attribute.local}`;
    if (attribute.uri !== '' && expanded.includes(key)) return null;
    expanded.push(key);
    attributes[name] = { uri: attribute.uri, local: attribute.local, value: values[a] };
  }
  return {
    scope: { qname, prefixes, defaultNs },
    tag: { uri: element.uri, local: element.local, attributes },
    closed,
    length: k - i,
    cacheable,
  };
}

const NO_NAMES: string[] = [];

/** A qualified name's namespace and local name; `unprefixed` is its namespace without a prefix; null: an unbound prefix. */
function resolve(
  prefixes: ReadonlyMap<string, string>,
  name: string,
  unprefixed: string,
): { uri: string; local: string } | null {
  const colon = name.indexOf(':');
  if (colon === -1) return { uri: unprefixed, local: name };
  const uri = prefixes.get(name.slice(0, colon));
  return uri === undefined ? null : { uri, local: name.slice(colon + 1) };
}

/** The text between `from` and `to` with its references replaced, or null when it is not plain. */
function plainText(xml: string, from: number, to: number): string | null {
  let out = '';
  let run = from;
  for (let k = from; k < to; k++) {
    const c = xml.charCodeAt(k);
    if (c === 0x26) {
      const semi = xml.indexOf(';', k + 1);
      if (semi === -1 || semi >= to) return null;
      const replaced = reference(xml.slice(k + 1, semi));
      if (replaced === null) return null;
      out += xml.slice(run, k) + replaced;
      k = semi;
      run = semi + 1;
    } else if (c === 0x3e) {
      // `]]>` is not allowed in text.
      if (k - from >= 2 && xml.charCodeAt(k - 1) === 0x5d && xml.charCodeAt(k - 2) === 0x5d) return null;
    } else if (!isPlainChar(c)) return null;
  }
  return run === from ? xml.slice(from, to) : out + xml.slice(run, to);
}

/** A reference's replacement: a named entity or a character reference to a character XML allows. */
function reference(name: string): string | null {
  const named = NAMED_ENTITIES.get(name);
  if (named !== undefined) return named;
  const digits = /^#(?:x([0-9A-Fa-f]{1,6})|([0-9]{1,7}))$/.exec(name);
  if (digits === null) return null;
  const code = digits[1] !== undefined ? parseInt(digits[1], 16) : parseInt(digits[2], 10);
  const allowed =
    code === 0x09 ||
    code === 0x0a ||
    code === 0x0d ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff);
  return allowed ? String.fromCodePoint(code) : null;
}
