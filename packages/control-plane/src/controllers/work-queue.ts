/** What a sync returns: nothing, or milliseconds after which the key is synced again. */
export type SyncResult = number | undefined;

/** Per-key backoff of a failing sync: 5 ms doubling up to 1000 s, as client-go's default. */
const BASE_DELAY_MS = 5;
const MAX_DELAY_MS = 1_000_000;

/**
 * client-go's work queue semantics for the built-in controllers: a key is never synced by two
 * workers at once; a key added while it syncs is synced again afterwards; a failing sync is
 * retried with per-key exponential backoff; `addAfter` delays a key.
 */
export class KeyQueue {
  private readonly queued: string[] = [];
  private readonly waiting = new Set<string>();
  private readonly active = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private running = 0;
  private stopped = false;
  private pumpScheduled = false;

  private readonly sync: (key: string) => Promise<SyncResult>;
  private readonly workers: number;

  constructor(sync: (key: string) => Promise<SyncResult>, workers = 5) {
    this.sync = sync;
    this.workers = workers;
  }

  /** Queues a key (once, however often it is added before it is synced). */
  add(key: string): void {
    if (this.stopped) return;
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.waiting.has(key)) return;
    this.waiting.add(key);
    this.queued.push(key);
    this.schedulePump();
  }

  /**
   * Starts queued keys on the next turn of the event loop, not at once: the changes of one burst
   * (a scheduler's batch of bindings, a slow-start batch of creates) then cost one sync, as an
   * informer's queue coalesces the events that arrive while its workers are busy.
   */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  /** Queues a key after `ms` (an earlier timer for it is kept when it fires sooner). */
  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    if (ms <= 0) return this.add(key);
    const at = Date.now() + ms;
    const existing = this.timers.get(key) as (NodeJS.Timeout & { at?: number }) | undefined;
    if (existing?.at !== undefined && existing.at <= at) return;
    if (existing) clearTimeout(existing);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms) as NodeJS.Timeout & { at?: number };
    timer.at = at;
    timer.unref();
    this.timers.set(key, timer);
  }

  /** Stops taking keys; syncs under way finish. */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.queued.length = 0;
    this.waiting.clear();
  }

  private pump(): void {
    while (!this.stopped && this.running < this.workers && this.queued.length) {
      const key = this.queued.shift()!;
      this.waiting.delete(key);
      this.active.add(key);
      this.running++;
      void this.run(key);
    }
  }

  private async run(key: string): Promise<void> {
    try {
      const after = await this.sync(key);
      this.failures.delete(key);
      if (typeof after === 'number') this.addAfter(key, after);
    } catch {
      const n = this.failures.get(key) ?? 0;
      this.failures.set(key, n + 1);
      this.addAfter(key, Math.min(BASE_DELAY_MS * 2 ** n, MAX_DELAY_MS));
    } finally {
      this.active.delete(key);
      this.running--;
      if (this.dirty.delete(key)) this.add(key);
      this.schedulePump();
    }
  }
}
