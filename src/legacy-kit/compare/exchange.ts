// A request and an answer as the comparison sees them, and the JSON Lines
// form of a request that RECORD_REQUESTS writes and `npm run compare --
// --requests` replays (docs/migration.md#recording-requests).

/** One HTTP request, as sent to every server compared. */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query, as the client sent them (`/X.asmx/Op?id=1`). */
  readonly path: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as UTF-8 text; empty when there is none. */
  readonly body: string;
  /** Set when the body is not UTF-8 text: then `body` is its base64. */
  readonly bodyEncoding?: 'base64';
}

/** One server's answer. */
export interface Answer {
  readonly status: number;
  /** Header names in lower case; repeated headers joined by `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** Headers a recording never keeps: credentials and session state. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);

/** Headers that belong to one connection or one hop, never forwarded or replayed as they were. */
export const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'upgrade',
  'trailer',
  'proxy-connection',
  'host',
  'content-length',
  'expect',
]);

/** `headers` without credentials and hop-by-hop headers, names in lower case, repeated values joined. */
export function replayableHeaders(
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
  options: { readonly keepCredentials: boolean },
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [rawName, value] of Object.entries(headers)) {
    const name = rawName.toLowerCase();
    if (value === undefined || HOP_HEADERS.has(name)) continue;
    if (!options.keepCredentials && CREDENTIAL_HEADERS.has(name)) continue;
    kept[name] = typeof value === 'string' ? value : value.join(', ');
  }
  return kept;
}

/** The request's body as bytes. */
export function bodyBytes(request: RecordedRequest): Buffer {
  return Buffer.from(request.body, request.bodyEncoding === 'base64' ? 'base64' : 'utf8');
}

/** A body as the JSON Lines form keeps it: text when it is valid UTF-8, else base64. */
export function bodyFields(body: Buffer): Pick<RecordedRequest, 'body' | 'bodyEncoding'> {
  const text = body.toString('utf8');
  return Buffer.from(text, 'utf8').equals(body)
    ? { body: text }
    : { body: body.toString('base64'), bodyEncoding: 'base64' };
}

/** One line of the JSON Lines file, with its newline. */
export function requestLine(request: RecordedRequest): string {
  return `${JSON.stringify(request)}\n`;
}

/** The requests of a JSON Lines file; throws naming the first line that is not a request. */
export function parseRequestLines(text: string, file: string): RecordedRequest[] {
  const requests: RecordedRequest[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new Error(`${file}:${i + 1}: not JSON.`);
    }
    const request = asRequest(value);
    if (request === null) throw new Error(`${file}:${i + 1}: not a request ({method, path, headers, body}).`);
    requests.push(request);
  }
  return requests;
}

function asRequest(value: unknown): RecordedRequest | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (typeof v.method !== 'string' || !/^[A-Z]{1,16}$/.test(v.method)) return null;
  if (typeof v.path !== 'string' || !v.path.startsWith('/')) return null;
  const body = v.body === undefined ? '' : v.body;
  if (typeof body !== 'string') return null;
  const headers: Record<string, string> = {};
  if (v.headers !== undefined) {
    if (typeof v.headers !== 'object' || v.headers === null) return null;
    for (const [name, header] of Object.entries(v.headers as Record<string, unknown>)) {
      if (typeof header !== 'string') return null;
      headers[name.toLowerCase()] = header;
    }
  }
  return v.bodyEncoding === 'base64'
    ? { method: v.method, path: v.path, headers, body, bodyEncoding: 'base64' }
    : { method: v.method, path: v.path, headers, body };
}
