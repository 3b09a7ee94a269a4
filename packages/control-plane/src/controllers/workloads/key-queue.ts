/**
 * The work queue of a built-in workload controller: keys (`namespace/name`) marked dirty are synced
 * one at a time, in turn; a key marked while it syncs is synced again afterwards; `after` brings a
 * key back later (minReadySeconds). A sync that throws is retried with a short backoff.
 */
export class KeyQueue {
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly failures = new Map<string, number>();
  private running = false;
  private stopped = false;
  private idle: Array<() => void> = [];
  private readonly sync: (key: string) => Promise<number | undefined>;

  /** `sync` returns milliseconds after which the key wants another turn, if it does. */
  constructor(sync: (key: string) => Promise<number | undefined>) {
    this.sync = sync;
  }

  /** Marks a key for a sync. */
  add(key: string): void {
    if (this.stopped) return;
    this.dirty.add(key);
    this.kick();
  }

  /** Syncs the key again in `ms` milliseconds (the earliest asked for wins). */
  after(key: string, ms: number): void {
    if (this.stopped || this.timers.has(key)) return;
    const t = setTimeout(
      () => {
        this.timers.delete(key);
        this.add(key);
      },
      Math.max(ms, 1),
    );
    t.unref();
    this.timers.set(key, t);
  }

  /** Stops syncing; pending timers are cleared. */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  /** Resolves once no key waits (for tests). */
  drained(): Promise<void> {
    if (!this.running && this.dirty.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private kick(): void {
    if (this.running) return;
    this.running = true;
    setImmediate(() => void this.run());
  }

  private async run(): Promise<void> {
    while (this.dirty.size > 0 && !this.stopped) {
      const key = this.dirty.values().next().value as string;
      this.dirty.delete(key);
      try {
        const again = await this.sync(key);
        this.failures.delete(key);
        if (again !== undefined) this.after(key, again);
      } catch {
        const n = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, n);
        this.after(key, Math.min(5 * 2 ** n, 5_000));
      }
    }
    this.running = false;
    for (const resolve of this.idle.splice(0)) resolve();
  }
}
