// A map of bounded size that forgets what was not used for a while, in O(1)
// per call. Entries live in two generations: new and used entries go into the
// current one; when it is full it becomes the previous one and the old
// previous one is dropped whole. An entry used again while in the previous
// generation moves back to the current one. So an entry is forgotten only
// after a whole generation's worth of other entries arrived without it being
// used, and the map never holds more than two generations.
//
// (A single Map kept in recency order by delete-and-set, evicting its first
// key, looked the same but was O(n) per eviction: V8 leaves a hole for each
// deleted entry, and finding the first key skips all of them.)

export class GenerationMap<V> {
  #current = new Map<string, V>();
  #previous = new Map<string, V>();
  readonly #generationSize: number;
  readonly #dropped: (entries: ReadonlyMap<string, V>) => void;

  /** `dropped` hears of every generation forgotten (the entries it held). */
  constructor(generationSize: number, dropped: (entries: ReadonlyMap<string, V>) => void = () => undefined) {
    this.#generationSize = Math.max(1, generationSize);
    this.#dropped = dropped;
  }

  get size(): number {
    return this.#current.size + this.#previous.size;
  }

  /** The entry, marking it used. */
  get(key: string): V | undefined {
    const value = this.#current.get(key);
    if (value !== undefined) return value;
    const old = this.#previous.get(key);
    if (old !== undefined) {
      this.#previous.delete(key);
      this.#admit(key, old);
    }
    return old;
  }

  set(key: string, value: V): void {
    if (this.#current.has(key)) {
      this.#current.set(key, value);
      return;
    }
    this.#previous.delete(key);
    this.#admit(key, value);
  }

  delete(key: string): void {
    if (!this.#current.delete(key)) this.#previous.delete(key);
  }

  /** Every entry, without marking any used. */
  *entries(): IterableIterator<[string, V]> {
    yield* this.#previous.entries();
    yield* this.#current.entries();
  }

  /** Forgets the previous generation now; the current one becomes the previous. */
  rotate(): void {
    const dropped = this.#previous;
    this.#previous = this.#current;
    this.#current = new Map();
    if (dropped.size > 0) this.#dropped(dropped);
  }

  #admit(key: string, value: V): void {
    if (this.#current.size >= this.#generationSize) this.rotate();
    this.#current.set(key, value);
  }
}
