/**
 * One holder at a time per key (upstream's GlobalKeyedMutex): `run(key, fn)` waits for the
 * holders before it, in arrival order, then runs `fn`; keys with no holder keep no state.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `fn` once every earlier holder of `key` has finished (resolved or rejected). */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = before.then(() => mine);
    this.tails.set(key, tail);
    await before;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** How many keys have a holder or waiters (for tests and leak checks). */
  get size(): number {
    return this.tails.size;
  }
}
