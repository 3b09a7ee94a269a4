/**
 * kubelet's crash-loop back-off (client-go `flowcontrol.Backoff` keyed by pod UID and container):
 * the first restart is immediate; each later exit waits `initial`, doubling up to `max`, counted
 * from the container's finish time; an entry idle for more than twice `max` starts over.
 */
export class RestartBackoff {
  private readonly entries = new Map<string, { backoffMs: number; lastUpdate: number }>();
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly now: () => number;

  constructor(initialMs = 10_000, maxMs = 300_000, now: () => number = Date.now) {
    this.initialMs = initialMs;
    this.maxMs = maxMs;
    this.now = now;
  }

  private expired(eventTime: number, lastUpdate: number): boolean {
    return eventTime - lastUpdate > 2 * this.maxMs;
  }

  /** Milliseconds still to wait before restarting a container that finished at `finishedAt` (0: restart now). */
  remaining(key: string, finishedAt: number): number {
    const e = this.entries.get(key);
    if (!e || this.expired(finishedAt, e.lastUpdate)) return 0;
    return Math.max(0, e.backoffMs - (this.now() - finishedAt));
  }

  /** Records a restart of a container that finished at `finishedAt`. */
  next(key: string, finishedAt: number): void {
    const e = this.entries.get(key);
    if (!e || this.expired(finishedAt, e.lastUpdate))
      this.entries.set(key, { backoffMs: this.initialMs, lastUpdate: this.now() });
    else {
      e.backoffMs = Math.min(e.backoffMs * 2, this.maxMs);
      e.lastUpdate = this.now();
    }
  }

  /** The current back-off of a key (for the CrashLoopBackOff message). */
  current(key: string): number {
    return this.entries.get(key)?.backoffMs ?? this.initialMs;
  }

  /** Forgets every key of a pod. */
  forgetPod(uid: string): void {
    for (const k of this.entries.keys()) if (k.startsWith(`${uid}/`)) this.entries.delete(k);
  }
}
