// A NUL (U+0000) in a value a caller chose (docs/design.md#a-nul-in-a-parameter).
// PostgreSQL holds no NUL in a text: a key holding one can equal nothing
// stored, and a query or insert carrying one fails as the store's failure.
// So a key with a NUL is answered as one that matches nothing before the
// store is asked (holdsNul), and a text kept only as a record of what the
// caller sent (a refused call, an audit entry) is kept with U+FFFD in its
// place (storableText), the same on both stores.

/** Whether any of `values` holds a NUL, which no stored text can. */
export function holdsNul(...values: readonly string[]): boolean {
  return values.some((value) => value.includes('\0'));
}

/** `text` as every store can keep it: each NUL written U+FFFD (same length, so bounds are unchanged). */
export function storableText(text: string): string {
  return text.includes('\0') ? text.replaceAll('\0', '\uFFFD') : text;
}
