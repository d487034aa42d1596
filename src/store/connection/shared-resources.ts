/** A use of a shared resource; release() once when done. */
export interface Lease<T> {
  readonly value: T;
  release(): Promise<void>;
}

/**
 * Hands out one instance per key to any number of users and destroys it
 * when the last one lets go. Concurrent first users wait on the same
 * creation; a failed creation is forgotten so that the next attempt retries.
 */
export class SharedResources<T> {
  readonly #entries = new Map<string, { ready: Promise<T>; users: number }>();

  async acquire(key: string, create: () => Promise<T>, destroy: (value: T) => Promise<void>): Promise<Lease<T>> {
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      const created = { ready: create(), users: 0 };
      this.#entries.set(key, created);
      created.ready.catch(() => {
        if (this.#entries.get(key) === created) this.#entries.delete(key);
      });
      entry = created;
    }
    const current = entry;
    current.users++;
    let value: T;
    try {
      value = await current.ready;
    } catch (error) {
      current.users--;
      throw error;
    }

    let released = false;
    return {
      value,
      release: async () => {
        if (released) return;
        released = true;
        current.users--;
        if (current.users > 0) return;
        if (this.#entries.get(key) === current) this.#entries.delete(key);
        await destroy(value);
      },
    };
  }
}
