// A copy of the answer the service writes, for the shadow comparison
// (docs/migration.md#shadow): status, headers and body, taken as they go out
// through writeHead, write and end. Installed only on the requests a shadow
// call is sampled for; bounded, and given up past the cap.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Answer } from '../legacy-kit/compare';

/** Returns a function giving the answer once it is sent, or null when it was longer than `maxBytes`. */
export function captureAnswer(res: ServerResponse, maxBytes: number): () => Answer | null {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  let written: OutgoingHttpHeaders = {};
  const add = (chunk: unknown, encoding: unknown) => {
    if (over || chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const buffer = Buffer.isBuffer(chunk)
      ? chunk
      : typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : chunk instanceof Uint8Array
          ? Buffer.from(chunk)
          : null;
    if (buffer === null) return;
    size += buffer.length;
    if (size > maxBytes) {
      over = true;
      chunks.length = 0;
      return;
    }
    chunks.push(buffer);
  };
  const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => ServerResponse;
  const write = res.write.bind(res) as (...a: unknown[]) => boolean;
  const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
  // The wire gives its headers to writeHead directly (src/wire/respond.ts), where getHeaders() does not see them.
  res.writeHead = (...args: unknown[]) => {
    const headers = args.find((arg, i) => i > 0 && typeof arg === 'object' && arg !== null && !Array.isArray(arg));
    if (headers !== undefined) written = headers as OutgoingHttpHeaders;
    return writeHead(...args);
  };
  res.write = ((...args: unknown[]) => {
    add(args[0], args[1]);
    return write(...args);
  }) as ServerResponse['write'];
  res.end = ((...args: unknown[]) => {
    add(args[0], args[1]);
    return end(...args);
  }) as ServerResponse['end'];
  return () => {
    if (over) return null;
    const headers: Record<string, string> = {};
    for (const source of [res.getHeaders(), written]) {
      for (const [name, value] of Object.entries(source)) {
        if (value === undefined) continue;
        headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
      }
    }
    return { status: res.statusCode, headers, body: Buffer.concat(chunks) };
  };
}
