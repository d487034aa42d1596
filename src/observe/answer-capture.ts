// A copy of the answer the service writes, for the shadow comparison
// (docs/migration.md#shadow): status, headers and body. Set only on the
// requests a shadow call is sampled for, as the call's answer tap: the wire's
// `send` (src/wire/respond.ts) hands it a call's successful answer as it
// writes it, so the response's own methods are left alone. Bounded: given up
// past the cap.
import type { OutgoingHttpHeaders } from 'node:http';
import type { Answer } from '../legacy-kit/compare';
import type { CallRecord } from '../wire';

/**
 * Returns a function giving the answer once it is sent, or null when it was
 * longer than `maxBytes` or none reached the tap (only answered calls do,
 * and only those are compared).
 */
export function captureAnswer(call: CallRecord, maxBytes: number): () => Answer | null {
  let answer: Answer | null = null;
  call.answerTap = (res, status, written, chunks) => {
    let size = 0;
    for (const chunk of chunks) size += chunk.length;
    if (size > maxBytes) return;
    answer = { status, headers: headersOf(res.getHeaders(), written), body: Buffer.concat(chunks, size) };
  };
  return () => answer;
}

/** Headers set before the answer (setHeader) and those handed to writeHead, as the client receives them. */
function headersOf(...sources: OutgoingHttpHeaders[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const source of sources) {
    for (const [name, value] of Object.entries(source)) {
      if (value === undefined) continue;
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    }
  }
  return headers;
}
