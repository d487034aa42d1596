// A push notification's id: a UUID of version 7 (RFC 9562), its first 48
// bits the time in milliseconds, the remaining 74 of the 122 free bits
// random. A random (version 4) id put every new row's primary-key entry on a
// random leaf of that index, one more page written to SQLite's WAL per row
// and, once the index outgrows the page cache, read from disk first; ids that
// grow with time land where the previous batch's did. Measured in
// docs/benchmark.md#ingestion; the id stays an opaque, unguessable string.
import { randomUUID } from 'node:crypto';

/** A version-7 UUID for the time `ms` (milliseconds since the epoch). */
export function timeOrderedId(ms: number): string {
  // randomUUID's pooled entropy, its version nibble replaced and its first 48 bits the time:
  // xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx -> tttttttt-tttt-7xxx-Vxxx-xxxxxxxxxxxx (V, the variant, kept).
  const time = Math.max(0, Math.trunc(ms)).toString(16).padStart(12, '0').slice(-12);
  return `${time.slice(0, 8)}-${time.slice(8)}-7${randomUUID().slice(15)}`;
}
