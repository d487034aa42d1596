// A multipart/form-data body (RFC 7578), read as it arrives, within a bound,
// for the roster import's upload (docs/console.md#import). The form has a few
// short fields and one file; nothing else is accepted. The file's bytes are
// handed on to a sink piece by piece as they arrive (the console's sink
// writes them to the store in chunks, upload-chunks.ts), so that a 32 MiB
// upload is never held whole, nor parsed in one go.
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

/** A form whose file went to a sink: the file's name and size only. */
export interface StreamedForm {
  readonly fields: ReadonlyMap<string, string>;
  readonly file: { readonly field: string; readonly fileName: string; readonly size: number } | null;
}

/** Where a file's bytes go; the bytes handed over are the reader's, to be copied before write settles. */
export interface FileSink {
  write(bytes: Buffer): Promise<void>;
}

/** Told when the file part begins, with the fields read before it; answers where its bytes go. */
export type OpenFile = (field: string, fileName: string, fieldsBefore: ReadonlyMap<string, string>) => FileSink;

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

/** Reads and parses the body with the file in memory; rejects with MultipartError past the limits or when it is not well formed. */
export async function readMultipart(req: Request, limits: MultipartLimits): Promise<MultipartForm> {
  const pieces: Buffer[] = [];
  const form = await streamMultipart(req, limits, () => ({
    write: (bytes) => {
      pieces.push(Buffer.from(bytes));
      return Promise.resolve();
    },
  }));
  return {
    fields: form.fields,
    file: form.file === null ? null : { ...form.file, data: Buffer.concat(pieces) },
  };
}

/**
 * Reads and parses the body as it arrives, the file's bytes to the sink
 * `openFile` answers; rejects with MultipartError past the limits or when it
 * is not well formed (or with the sink's own error). The request is paused
 * while the sink writes, and drained (nothing kept) once the form is refused,
 * so that the refusal can be read.
 */
export function streamMultipart(req: Request, limits: MultipartLimits, openFile: OpenFile): Promise<StreamedForm> {
  const type = req.headers['content-type'] ?? '';
  const boundary = /;\s*boundary=(?:"([^"]{1,70})"|([^;\s"]{1,70}))/i.exec(type);
  const delimiter = boundary?.[1] ?? boundary?.[2];
  if (delimiter === undefined)
    return Promise.reject(new MultipartError('malformed', 'The form has no multipart boundary.'));
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limits.maxBytes)
    return Promise.reject(new MultipartError('too_large', `The form is larger than ${limits.maxBytes} bytes.`));
  const parser = new FormParser(delimiter, limits, openFile);
  return new Promise((resolve, reject) => {
    let total = 0;
    let failed = false;
    let work: Promise<void> = Promise.resolve();
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      reject(err instanceof Error ? err : new Error(String(err)));
      // Keep draining so that the refusal can be read; nothing more is kept.
      req.resume();
    };
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      total += chunk.length;
      if (total > limits.maxBytes) {
        fail(new MultipartError('too_large', `The form is larger than ${limits.maxBytes} bytes.`));
        return;
      }
      // One piece at a time: the next waits until the sink has written this one.
      req.pause();
      work = work
        .then(() => parser.push(chunk))
        .then(() => {
          if (!failed) req.resume();
        }, fail);
    });
    let ended = false;
    req.on('end', () => {
      ended = true;
      work = work
        .then(() => {
          if (!failed) resolve(parser.end());
        })
        .catch(fail);
    });
    req.on('error', fail);
    // A client that goes away mid-form: no 'end', maybe no 'error' either; the caller deletes what was kept.
    req.on('close', () => {
      if (!ended) fail(new MultipartError('malformed', 'The form was cut short.'));
    });
  });
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
const MAX_HEADERS = 4096;

type Part =
  | { readonly kind: 'field'; readonly name: string; readonly pieces: Buffer[]; size: number }
  | { readonly kind: 'file'; readonly sink: FileSink; readonly file: { size: number } }
  | { readonly kind: 'preamble' };

/**
 * The parser's states: `body` (a part's content, or the preamble, up to the
 * next delimiter), `delimiter` (the two bytes after one: `--` ends the form,
 * CRLF starts a part), `headers` (a part's headers), `done`.
 */
class FormParser {
  readonly #between: Buffer;
  readonly #fields = new Map<string, string>();
  #file: { field: string; fileName: string; size: number } | null = null;
  // The form is read as if a CRLF came first, so that the first delimiter is found as every other one is.
  #pending: Buffer = CRLF;
  #state: 'body' | 'delimiter' | 'headers' | 'done' = 'body';
  #part: Part = { kind: 'preamble' };
  #parts = 0;

  constructor(
    boundary: string,
    private readonly limits: MultipartLimits,
    private readonly openFile: OpenFile,
  ) {
    this.#between = Buffer.from(`\r\n--${boundary}`);
  }

  async push(chunk: Buffer): Promise<void> {
    if (this.#state === 'done') return;
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    for (;;) {
      if (this.#state === 'body') {
        const at = this.#pending.indexOf(this.#between);
        if (at < 0) {
          // All but what could be the start of a delimiter split across two pieces.
          const safe = this.#pending.length - (this.#between.length - 1);
          if (safe > 0) {
            await this.#content(this.#pending.subarray(0, safe));
            this.#pending = this.#pending.subarray(safe);
          }
          return;
        }
        await this.#content(this.#pending.subarray(0, at));
        this.#endPart();
        this.#pending = this.#pending.subarray(at + this.#between.length);
        this.#state = 'delimiter';
      } else if (this.#state === 'delimiter') {
        if (this.#pending.length < 2) return;
        const next = this.#pending.subarray(0, 2);
        if (next.toString('latin1') === '--') {
          this.#state = 'done';
          this.#pending = Buffer.alloc(0);
          return;
        }
        if (!next.equals(CRLF)) throw malformed('a boundary is not followed by a line end');
        if (this.#parts >= this.limits.maxParts) throw malformed(`more than ${this.limits.maxParts} parts`);
        this.#parts++;
        this.#pending = this.#pending.subarray(2);
        this.#state = 'headers';
      } else if (this.#state === 'headers') {
        const end = this.#pending.indexOf(HEADER_END);
        if (end < 0 || end > MAX_HEADERS) {
          if (end > MAX_HEADERS || this.#pending.length > MAX_HEADERS + HEADER_END.length)
            throw malformed('a part has no end to its headers');
          return;
        }
        this.#part = this.#startPart(this.#pending.subarray(0, end).toString('utf8'));
        this.#pending = this.#pending.subarray(end + HEADER_END.length);
        this.#state = 'body';
      } else return;
    }
  }

  end(): StreamedForm {
    if (this.#state !== 'done')
      throw malformed(this.#state === 'headers' ? 'a part has no end to its headers' : 'the last boundary is missing');
    return { fields: this.#fields, file: this.#file };
  }

  #startPart(headers: string): Part {
    const disposition = /^content-disposition:\s*form-data(.*)$/im.exec(headers)?.[1] ?? null;
    if (disposition === null) throw malformed('a part has no Content-Disposition');
    const name = /;\s*name="([^"]{1,64})"/i.exec(disposition)?.[1];
    if (name === undefined) throw malformed('a part has no name');
    const fileName = /;\s*filename="([^"]{0,255})"/i.exec(disposition)?.[1];
    if (fileName === undefined) return { kind: 'field', name, pieces: [], size: 0 };
    if (this.#file !== null) throw malformed('more than one file');
    const file = { field: name, fileName, size: 0 };
    this.#file = file;
    return { kind: 'file', sink: this.openFile(name, fileName, new Map(this.#fields)), file };
  }

  async #content(bytes: Buffer): Promise<void> {
    const part = this.#part;
    if (bytes.length === 0 || part.kind === 'preamble') return;
    if (part.kind === 'file') {
      part.file.size += bytes.length;
      await part.sink.write(bytes);
      return;
    }
    part.size += bytes.length;
    if (part.size > this.limits.maxFieldBytes) throw malformed(`the field ${part.name} is too long`);
    part.pieces.push(Buffer.from(bytes));
  }

  #endPart(): void {
    const part = this.#part;
    if (part.kind === 'field' && !this.#fields.has(part.name))
      this.#fields.set(part.name, Buffer.concat(part.pieces).toString('utf8'));
    this.#part = { kind: 'preamble' };
  }
}

const malformed = (why: string) => new MultipartError('malformed', `The form is not well formed: ${why}.`);
