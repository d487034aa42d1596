// Per-request state travels in the open (docs/design.md#per-request-state):
// the call record is made once per request and handed on
// (src/wire/call-record.ts), never found again through a module-level map
// keyed by the request or the response, and an answer is copied through the
// wire's one hook (AnswerTap), never by replacing the response's methods.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const src = path.resolve(__dirname, '../../src');

// The objects that live exactly as long as one request.
const PER_REQUEST = String.raw`(?:ServerResponse|IncomingMessage|Request|Response|Http2ServerRequest|Http2ServerResponse|OutgoingMessage)\b`;
/** A map declared outside any function (no indentation), keyed by a request or a response. */
const MODULE_MAP = new RegExp(
  String.raw`^(?:export\s+)?(?:const|let|var)\s+\w+(?:\s*:[^=]+)?\s*=\s*new\s+(?:Weak)?Map\s*<\s*${PER_REQUEST}`,
  'm',
);
/** A response's writing method replaced: `res.write = …`, `response.end = …`, `res.writeHead = …`. */
const PATCHED_METHOD = /\b\w+\.(?:write|end|writeHead)\s*=(?!=)/;

/** Violations in one file's text, as `line: text`. */
function violations(source: string): string[] {
  return source
    .split('\n')
    .map((line, index) => ({ line, number: index + 1 }))
    .filter(({ line }) => MODULE_MAP.test(line) || PATCHED_METHOD.test(line))
    .map(({ line, number }) => `${number}: ${line.trim()}`);
}

describe('per-request state', () => {
  it('has no module-level map keyed by a request or a response, and no patched response methods, in src/', () => {
    const found: string[] = [];
    for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
      const file = path.join(entry.parentPath, entry.name);
      for (const violation of violations(readFileSync(file, 'utf8')))
        found.push(`${path.relative(src, file)}:${violation}`);
    }
    expect(found).toEqual([]);
  });

  it('finds what it looks for', () => {
    expect(violations('const records = new WeakMap<ServerResponse, CallRecord>();')).toHaveLength(1);
    expect(
      violations('export const bodies: WeakMap<IncomingMessage, Buffer> = new WeakMap<IncomingMessage, Buffer>();'),
    ).toHaveLength(1);
    expect(violations('let seen = new Map<Response, number>();')).toHaveLength(1);
    expect(
      violations('  res.write = ((...args: unknown[]) => write(...args)) as ServerResponse["write"];'),
    ).toHaveLength(1);
    expect(violations('  response.end = () => response;')).toHaveLength(1);
    expect(violations('  res.writeHead = (...args) => writeHead(...args);')).toHaveLength(1);
    // Not per-request: a map inside a function, keyed by text; a comparison; a call.
    expect(violations('  const pending = new Map<ServerResponse, number>();')).toEqual([]);
    expect(violations('const cache = new Map<string, MediaType>();')).toEqual([]);
    expect(violations('if (res.end === original) res.end(body);')).toEqual([]);
  });
});
