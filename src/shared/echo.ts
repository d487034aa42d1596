// A value a caller sent, as an error text repeats it (docs/design.md#a-control-character-in-an-echoed-value).
// ASMX repeats such values as they came: an operation name, a Content-Type,
// a `char` parameter, a SOAPAction, an unknown student's id. A caller can
// put any control character in them (`%00`, `%0D%0A`, `%1B`), which would
// then reach the plain-text 500 body, a faultstring, or whatever log or
// screen shows that text. Each one is written U+FFFD instead: the text
// keeps its length and shows where the character was, as storableText
// (src/shared/nul.ts) does for a NUL kept in a store.

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/g;

/** `value` with each control character (C0, DEL, C1) written U+FFFD. */
export function echoed(value: string): string {
  return value.replace(CONTROL, '\uFFFD');
}
