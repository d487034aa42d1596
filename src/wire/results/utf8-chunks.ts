// A long answer written straight into UTF-8 chunks, a character at a time,
// instead of as a string that Buffer.from then encodes: V8 encodes a string
// holding any character past Latin-1 (an Arabic name is enough) by a slow
// per-character path, and flattens the grown string first; for a
// 500-student list that was four fifths of the writer's instructions
// (docs/benchmark.md#sixth-round-the-operations-share). The bytes are those of
// `Buffer.from(escapeText(value), 'utf8')`: a lone surrogate becomes U+FFFD as
// Buffer.from writes it, and which characters XML text changes, and into
// what, is read from escapeText itself (src/shared/markup.ts, the one escape),
// not written again here (test/wire/utf8-chunks.test.ts compares every code unit).
import { escapeText } from '../../shared/markup';
import type { Chunks } from './chunks';

/** Bytes a chunk is given; a value longer than a chunk can hold gets a chunk of its own size. */
const CHUNK_BYTES = 32 * 1024;

/**
 * What escapeText makes of each UTF-16 code unit, learnt from escapeText
 * itself the first time the unit is met (so that the escape stays in one
 * place, and no start-up pays for 65,536 of them): `state[unit]` is 0 until
 * then, KEPT, or CHANGED with `entities[unit]` the UTF-8 bytes it becomes.
 */
const KEPT = 1;
const CHANGED = 2;
const state = new Uint8Array(0x10000);
const entities: (Uint8Array | undefined)[] = [];
/** The most bytes a code unit can become: an entity's (checked as each is learnt), or 3 of UTF-8. */
const MAX_BYTES = 8;

function learn(unit: number): number {
  // A surrogate alone is no character to escapeText: pairs and halves are encoded below.
  const ch = String.fromCharCode(unit);
  const escaped = unit >= 0xd800 && unit <= 0xdfff ? ch : escapeText(ch);
  if (escaped === ch) {
    state[unit] = KEPT;
    return KEPT;
  }
  const bytes = Buffer.from(escaped, 'utf8');
  if (bytes.length > MAX_BYTES)
    throw new Error(`escapeText makes U+${unit.toString(16)} longer than ${MAX_BYTES} bytes`);
  entities[unit] = bytes;
  state[unit] = CHANGED;
  return CHANGED;
}

/** Bytes of a text known when the module loads (tags): copied, not encoded, on every call. */
export function utf8Bytes(text: string): Uint8Array {
  return Buffer.from(text, 'utf8');
}

/** Writes UTF-8 into chunks of about CHUNK_BYTES. */
export class Utf8Chunks {
  private readonly chunks: Buffer[] = [];
  private buf: Buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  private at = 0;

  /** Bytes given once (utf8Bytes). */
  bytes(bytes: Uint8Array): void {
    const n = bytes.length;
    this.room(n);
    const buf = this.buf;
    let at = this.at;
    for (let i = 0; i < n; i++) buf[at++] = bytes[i];
    this.at = at;
  }

  /** `text` as XML character data: escaped as escapeText does, then UTF-8. */
  text(text: string): void {
    this.encode(text, true);
  }

  /** `text` as it is (markup the service wrote: an envelope's head and tail), in UTF-8. */
  markup(text: string): void {
    this.encode(text, false);
  }

  /** The chunks written, the last one cut to its length; the writer is not used again. */
  end(): Chunks {
    if (this.at > 0) this.chunks.push(this.buf.subarray(0, this.at));
    return this.chunks;
  }

  private room(bytes: number): void {
    if (this.buf.length - this.at >= bytes) return;
    if (this.at > 0) this.chunks.push(this.buf.subarray(0, this.at));
    this.buf = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, bytes));
    this.at = 0;
  }

  private encode(text: string, escape: boolean): void {
    const n = text.length;
    this.room(n * MAX_BYTES);
    const buf = this.buf;
    let at = this.at;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (escape && state[c] !== KEPT && (state[c] === CHANGED || learn(c) === CHANGED)) {
        const entity = entities[c] as Uint8Array;
        for (let k = 0; k < entity.length; k++) buf[at++] = entity[k];
      } else if (c < 0x80) {
        buf[at++] = c;
      } else if (c < 0x800) {
        buf[at++] = 0xc0 | (c >> 6);
        buf[at++] = 0x80 | (c & 0x3f);
      } else if (c < 0xd800 || c > 0xdfff) {
        buf[at++] = 0xe0 | (c >> 12);
        buf[at++] = 0x80 | ((c >> 6) & 0x3f);
        buf[at++] = 0x80 | (c & 0x3f);
      } else {
        const next = i + 1 < n ? text.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          const point = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
          buf[at++] = 0xf0 | (point >> 18);
          buf[at++] = 0x80 | ((point >> 12) & 0x3f);
          buf[at++] = 0x80 | ((point >> 6) & 0x3f);
          buf[at++] = 0x80 | (point & 0x3f);
          i++;
        } else {
          // A lone half: U+FFFD, as Buffer.from writes it.
          buf[at++] = 0xef;
          buf[at++] = 0xbf;
          buf[at++] = 0xbd;
        }
      }
    }
    this.at = at;
  }
}
