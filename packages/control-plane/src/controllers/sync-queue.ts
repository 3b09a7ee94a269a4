const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 30_000;

/**
 * A small work queue for the built-in controllers: a key marked dirty is synced soon, never twice at
 * once (marked while syncing, it is synced again after), and a failed sync is retried with
 * exponential backoff (100 ms doubling up to 30 s) until it succeeds or the key is marked again.
 */
export class SyncQueue {
  private readonly dirty = new Set<string>();
  private readonly running = new Set<string>();
  private readonly again = new Set<string>();
  private readonly retries = new Map<string, NodeJS.Timeout>();
  private readonly failures = new Map<string, number>();
  private scheduled = false;
  private stopped = false;
  private waiters: (() => void)[] = [];

  private readonly sync: (key: string) => Promise<void>;

  constructor(sync: (key: string) => Promise<void>) {
    this.sync = sync;
  }

  /** Asks for `key` to be synced. */
  mark(key: string): void {
    if (this.stopped) return;
    clearTimeout(this.retries.get(key));
    this.retries.delete(key);
    if (this.running.has(key)) {
      this.again.add(key);
      return;
    }
    this.dirty.add(key);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.drain());
  }

  /** Resolves once every key marked so far had its sync (retries waiting on backoff do not count). */
  idle(): Promise<void> {
    if (!this.scheduled && this.running.size === 0 && this.dirty.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Stops syncing and drops pending retries. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
    this.dirty.clear();
    this.settle();
  }

  private drain(): void {
    this.scheduled = false;
    const keys = [...this.dirty];
    this.dirty.clear();
    for (const key of keys) void this.run(key);
    this.settle();
  }

  private async run(key: string): Promise<void> {
    if (this.stopped) return;
    this.running.add(key);
    let failed = false;
    try {
      await this.sync(key);
      this.failures.delete(key);
    } catch {
      failed = true;
    }
    this.running.delete(key);
    if (this.again.delete(key)) this.mark(key);
    else if (failed && !this.stopped) {
      const failures = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, failures);
      const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (failures - 1));
      const timer = setTimeout(() => {
        this.retries.delete(key);
        this.mark(key);
      }, delay);
      timer.unref();
      this.retries.set(key, timer);
    }
    this.settle();
  }

  private settle(): void {
    if (this.scheduled || this.running.size || this.dirty.size) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
