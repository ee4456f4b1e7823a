/**
 * Serialises work per key (one zone file = one key). A caller may hold several keys at once; all
 * of them are queued in one synchronous step, so two multi-key callers can never deadlock.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  /** Waits until every key is free and returns the function that frees them again. */
  async lock(keys: Iterable<string>): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const waits: Promise<void>[] = [];
    for (const key of new Set(keys)) {
      const previous = this.tails.get(key) ?? Promise.resolve();
      waits.push(previous);
      const tail = previous.then(() => held);
      this.tails.set(key, tail);
      // Drop the entry once nobody queued behind us, so the map does not grow with history.
      void tail.then(() => {
        if (this.tails.get(key) === tail) this.tails.delete(key);
      });
    }
    await Promise.all(waits);
    return release;
  }

  /** Runs `work` while holding `keys`. */
  async run<T>(keys: Iterable<string>, work: () => Promise<T>): Promise<T> {
    const release = await this.lock(keys);
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** Resolves once everything queued so far has finished. */
  async idle(): Promise<void> {
    await Promise.all([...this.tails.values()]);
  }
}
