// A value that may be there now or later: what the store's hot reads give on
// SQLite (now) and PostgreSQL (later), so that a call answers in the same
// turn when it can (docs/design.md#answered-in-the-same-turn).

/** A value now, or a promise of it. */
export type Settled<T> = T | Promise<T>;

/** `f` of the value: at once when it is there, else once the promise settles. */
export function whenSettled<T, U>(value: Settled<T>, f: (value: T) => U): Settled<U> {
  return value instanceof Promise ? value.then(f) : f(value);
}
