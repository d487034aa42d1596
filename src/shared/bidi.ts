// Unicode's bidirectional formatting characters: embeddings and overrides
// (U+202A to U+202E), isolates (U+2066 to U+2069) and the marks (U+200E,
// U+200F, U+061C). In a name they reorder how the text around them reads: a
// U+202E (right-to-left override) in a student's name reverses what follows
// it in a title or a heading. The console isolates text that holds them
// (src/shared/markup.ts) and the import says which records do
// (src/import/read-source.ts); docs/console.md#text-direction.
const BIDI_CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

/** Whether `text` holds a bidirectional formatting character. */
export function hasBidiControl(text: string): boolean {
  return BIDI_CONTROL.test(text);
}

/**
 * `text` between a first-strong isolate (U+2068) and a pop directional
 * isolate (U+2069): however it is written, it cannot change the direction of
 * what surrounds it, and any embedding or override it opens ends with it.
 */
export function isolated(text: string): string {
  return `\u2068${text}\u2069`;
}
