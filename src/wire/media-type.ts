export interface MediaType {
  /** Lower-cased `type/subtype`; empty when the header is absent. */
  readonly type: string;
  /** Parameter names lower-cased, values unquoted. */
  readonly parameters: ReadonlyMap<string, string>;
}

/** U+FEFF, the byte order mark a UTF-8 body may start with. */
const BOM = 0xfeff;

const NONE: MediaType = { type: '', parameters: new Map() };

// A client sends the same Content-Type on every call (a SOAP 1.2 one with its
// action): the parsed form is kept for the most recent few hundred headers.
const CACHE_SIZE = 256;
const cache = new Map<string, MediaType>();

/** Lenient on purpose: clients send `charset=UTF-8`, `action="…"`, stray spaces and semicolons. */
export function parseMediaType(header: string | undefined): MediaType {
  if (header === undefined) return NONE;
  let media = cache.get(header);
  if (media === undefined) {
    media = parse(header);
    if (cache.size >= CACHE_SIZE) cache.clear();
    cache.set(header, media);
  }
  return media;
}

function parse(header: string): MediaType {
  if (header.trim() === '') return NONE;
  const [type, ...rest] = header.split(';');
  const parameters = new Map<string, string>();
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim().toLowerCase();
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (name !== '' && !parameters.has(name)) parameters.set(name, value);
  }
  return { type: type.trim().toLowerCase(), parameters };
}

/** Decodes a body in the charset its Content-Type names (UTF-8 when none); null for a charset we cannot read. */
export function decodeBody(body: Buffer, media: MediaType): string | null {
  const charset = (media.parameters.get('charset') ?? 'utf-8').toLowerCase();
  if (charset === 'utf-8' || charset === 'utf8') {
    const text = body.toString('utf8');
    // A look at one character rather than a regular expression's replace on every body (docs/benchmark.md#fifth-round-http-get-and-post).
    return text.charCodeAt(0) === BOM ? text.slice(1) : text;
  }
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return null;
  }
}
