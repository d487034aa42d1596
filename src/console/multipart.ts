// A multipart/form-data body (RFC 7578) read whole into memory, within a
// bound, for the roster import's upload (docs/console.md#import). The form
// has a few short fields and one file; nothing else is accepted.
import type { Request } from 'express';

export interface UploadedFile {
  readonly field: string;
  /** The name the browser gave, as sent (the caller checks it). */
  readonly fileName: string;
  readonly data: Buffer;
}

export interface MultipartForm {
  readonly fields: ReadonlyMap<string, string>;
  readonly file: UploadedFile | null;
}

export interface MultipartLimits {
  /** The whole body, headers of the parts included. */
  readonly maxBytes: number;
  readonly maxParts: number;
  /** A field that is not a file. */
  readonly maxFieldBytes: number;
}

export class MultipartError extends Error {
  override readonly name = 'MultipartError';
  constructor(
    readonly kind: 'too_large' | 'malformed',
    message: string,
  ) {
    super(message);
  }
}

export function isMultipart(req: Request): boolean {
  return /^multipart\/form-data\s*;/i.test(req.headers['content-type'] ?? '');
}

/** Reads and parses the body; rejects with MultipartError past the limits or when it is not well formed. */
export async function readMultipart(req: Request, limits: MultipartLimits): Promise<MultipartForm> {
  const type = req.headers['content-type'] ?? '';
  const boundary = /;\s*boundary=(?:"([^"]{1,70})"|([^;\s"]{1,70}))/i.exec(type);
  const delimiter = boundary?.[1] ?? boundary?.[2];
  if (delimiter === undefined) throw new MultipartError('malformed', 'The form has no multipart boundary.');
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limits.maxBytes)
    throw new MultipartError('too_large', `The form is larger than ${limits.maxBytes} bytes.`);
  const body = await readCapped(req, limits.maxBytes, declared);
  return parse(body, delimiter, limits);
}

function readCapped(req: Request, maxBytes: number, declared: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    // With a declared length the body is copied once into a buffer of that size: gathering
    // chunks and joining them held a 32 MiB upload twice.
    const whole = Number.isSafeInteger(declared) && declared > 0 ? Buffer.allocUnsafe(declared) : null;
    let total = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      if (whole !== null && total + chunk.length <= whole.length) chunk.copy(whole, total);
      else if (whole === null) chunks.push(chunk);
      total += chunk.length;
      if (total > maxBytes || (whole !== null && total > whole.length)) {
        over = true;
        chunks.length = 0;
        // Keep draining so that the 413 can be read by the browser; nothing more is kept.
        reject(
          total > maxBytes
            ? new MultipartError('too_large', `The form is larger than ${maxBytes} bytes.`)
            : new MultipartError('malformed', 'The form is longer than its Content-Length.'),
        );
        return;
      }
    });
    req.on('end', () => {
      if (over) return;
      if (whole === null) resolve(Buffer.concat(chunks, total));
      else resolve(whole.subarray(0, total));
    });
    req.on('error', reject);
  });
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

function parse(body: Buffer, boundary: string, limits: MultipartLimits): MultipartForm {
  const dashBoundary = Buffer.from(`--${boundary}`);
  const between = Buffer.from(`\r\n--${boundary}`);
  const fields = new Map<string, string>();
  let file: UploadedFile | null = null;
  const malformed = (why: string) => new MultipartError('malformed', `The form is not well formed: ${why}.`);

  let at = body.indexOf(dashBoundary);
  if (at < 0) throw malformed('no first boundary');
  at += dashBoundary.length;
  for (let parts = 0; ; parts++) {
    if (body.subarray(at, at + 2).toString('latin1') === '--') break;
    if (parts >= limits.maxParts) throw malformed(`more than ${limits.maxParts} parts`);
    if (!body.subarray(at, at + 2).equals(CRLF)) throw malformed('a boundary is not followed by a line end');
    const headerEnd = body.indexOf(HEADER_END, at + 2);
    if (headerEnd < 0 || headerEnd - at > 4096) throw malformed('a part has no end to its headers');
    const headers = body.subarray(at + 2, headerEnd).toString('utf8');
    const next = body.indexOf(between, headerEnd + 4);
    if (next < 0) throw malformed('the last boundary is missing');
    const content = body.subarray(headerEnd + 4, next);
    at = next + between.length;

    const disposition = /^content-disposition:\s*form-data(.*)$/im.exec(headers)?.[1] ?? null;
    if (disposition === null) throw malformed('a part has no Content-Disposition');
    const name = /;\s*name="([^"]{1,64})"/i.exec(disposition)?.[1];
    if (name === undefined) throw malformed('a part has no name');
    const fileName = /;\s*filename="([^"]{0,255})"/i.exec(disposition)?.[1];
    if (fileName !== undefined) {
      if (file !== null) throw malformed('more than one file');
      file = { field: name, fileName, data: content };
    } else {
      if (content.length > limits.maxFieldBytes) throw malformed(`the field ${name} is too long`);
      if (!fields.has(name)) fields.set(name, content.toString('utf8'));
    }
  }
  return { fields, file };
}
