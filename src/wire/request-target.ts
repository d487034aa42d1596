// Reading the request target as ASMX does: the query exactly as sent, and
// percent-decoding that leaves a malformed escape as it was instead of failing.

/** The query as sent, undecoded: all after the first `?` of the request target. */
export function rawQueryOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? '' : url.slice(q + 1);
}

/** `decodeURIComponent`, or the text unchanged when it holds a malformed escape. */
export function safeDecode(value: string): string {
  // Most paths and names hold no escape: nothing to decode.
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
