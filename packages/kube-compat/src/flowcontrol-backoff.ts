/**
 * client-go's flowcontrol.Backoff without jitter: a per-key delay that starts at `initialMs`,
 * doubles on each `next` up to `maxMs`, and is forgotten once a key has been quiet for twice
 * `maxMs`. The DaemonSet controllers use it (1 s → 15 min) so a node whose kubelet keeps rejecting
 * a daemon pod is not hot-looped with deletes and creates.
 */
export class Backoff {
  private readonly entries = new Map<string, { backoffMs: number; lastUpdate: number }>();

  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly now: () => number;

  constructor(initialMs: number, maxMs: number, now: () => number = Date.now) {
    this.initialMs = initialMs;
    this.maxMs = maxMs;
    this.now = now;
  }

  private expired(eventTime: number, lastUpdate: number): boolean {
    return eventTime - lastUpdate > this.maxMs * 2;
  }

  /** The key's current delay (0 when it has none). */
  get(key: string): number {
    return this.entries.get(key)?.backoffMs ?? 0;
  }

  /** Records an event for the key at `eventTime`: its delay starts, or doubles (up to the maximum). */
  next(key: string, eventTime: number): void {
    const entry = this.entries.get(key);
    if (!entry || this.expired(eventTime, entry.lastUpdate))
      this.entries.set(key, { backoffMs: this.initialMs, lastUpdate: this.now() });
    else {
      entry.backoffMs = Math.min(entry.backoffMs * 2, this.maxMs);
      entry.lastUpdate = this.now();
    }
  }

  /** Whether `eventTime` falls within the key's delay since its last event (IsInBackOffSinceUpdate). */
  inBackoffSinceUpdate(key: string, eventTime: number): boolean {
    const entry = this.entries.get(key);
    if (!entry || this.expired(eventTime, entry.lastUpdate)) return false;
    return eventTime - entry.lastUpdate < entry.backoffMs;
  }

  /** Forgets the keys that have been quiet for twice the maximum delay. */
  gc(): void {
    const now = this.now();
    for (const [key, entry] of this.entries)
      if (now - entry.lastUpdate > this.maxMs * 2) this.entries.delete(key);
  }

  /** How many keys it holds (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }
}
