// Label values must come from small, known sets: an unbounded label (a phone
// number, a token, a student id) makes a new series per value and can take
// Prometheus down. Anything not shaped like a code is folded into `other`.
const CODE = /^[A-Za-z0-9_.:-]{1,48}$/;

/** A code fit for a label value, or `other`; at most `limit` distinct values are passed through. */
export function boundedCode(limit: number): (code: string) => string {
  const seen = new Set<string>();
  return (code) => {
    if (!CODE.test(code)) return 'other';
    if (seen.has(code)) return code;
    if (seen.size >= limit) return 'other';
    seen.add(code);
    return code;
  };
}

/**
 * Caches a metric's children by their label values: prom-client hashes the
 * labels on every call, and the request path should not pay for that.
 */
export function childCache<Child>(make: (values: readonly string[]) => Child): (...values: string[]) => Child {
  const children = new Map<string, Child>();
  return (...values) => {
    const key = values.join('\u0000');
    let child = children.get(key);
    if (child === undefined) {
      child = make(values);
      children.set(key, child);
    }
    return child;
  };
}
