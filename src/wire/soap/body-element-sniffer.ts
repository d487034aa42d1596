// Finds the first element inside a SOAP Body while the body is still
// arriving, so that a call whose operation only its body element names can be
// refused by the access policy without reading (or parsing) the rest
// (docs/security.md#refused-before-the-body). It reads no further than that
// element's start tag and keeps nothing of what it read.
import { TextDecoder } from 'node:util';
import { SaxesParser } from 'saxes';
import { ENVELOPE_NS } from './version';

export type SniffResult =
  /** The body element's name: the operation can be told. */
  | { readonly found: true; readonly namespace: string; readonly localName: string }
  /** Not yet: more of the body is needed. */
  | { readonly found: false; readonly done: false }
  /** Never, from this body: not XML, not an envelope, no Body, or no element in it. */
  | { readonly found: false; readonly done: true };

const MORE: SniffResult = { found: false, done: false };
const NEVER: SniffResult = { found: false, done: true };
const ENVELOPES: ReadonlySet<string> = new Set(Object.values(ENVELOPE_NS));

export interface BodyElementSniffer {
  /** Feeds the next bytes of the body. */
  write(chunk: Buffer): SniffResult;
}

/** `charset`: the body's, from its Content-Type (UTF-8 when absent); null when it is not one TextDecoder knows. */
export function createBodyElementSniffer(charset: string | undefined): BodyElementSniffer | null {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset ?? 'utf-8');
  } catch {
    return null;
  }
  const parser = new SaxesParser({ xmlns: true });
  let depth = 0;
  let inBody = false;
  let result: SniffResult = MORE;
  parser.on('opentag', (tag) => {
    depth++;
    if (result !== MORE) return;
    if (depth === 1 && !ENVELOPES.has(tag.uri)) result = NEVER;
    else if (depth === 2) inBody = tag.local === 'Body' && ENVELOPES.has(tag.uri);
    else if (depth === 3 && inBody) result = { found: true, namespace: tag.uri, localName: tag.local };
  });
  parser.on('closetag', () => {
    if (depth === 2 && inBody && result === MORE) result = NEVER;
    depth--;
  });
  parser.on('error', () => {
    result = NEVER;
  });
  return {
    write(chunk) {
      if (result !== MORE) return result;
      try {
        parser.write(decoder.decode(chunk, { stream: true }));
      } catch {
        result = NEVER;
      }
      return result;
    },
  };
}
