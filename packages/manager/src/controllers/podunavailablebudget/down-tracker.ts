import type { Pod } from 'kubernetes-types/core/v1.js';

/** How long a pod's last going down is remembered (well past the 10 s an update record lasts). */
const KEEP_MS = 60_000;

/**
 * When the controller last saw each pod go from available to unavailable (its own clock, to the
 * millisecond), so a budget's record of an in-place update can be dropped as soon as the pod has
 * gone down after the record and come back — instead of after upstream's fixed 10 s, which paces
 * a rolling update to one pod per 10 s. Kept in memory only: a new leader falls back to the 10 s.
 */
export class DownTracker {
  private readonly downAt = new Map<string, number>();
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** Notes a pod update: when the pod stopped being available. */
  observe(old: Pod, cur: Pod, available: (pod: Pod) => boolean): void {
    const uid = cur.metadata?.uid ?? '';
    if (available(old) && !available(cur)) this.downAt.set(uid, this.now());
    if (this.downAt.size > 1000) this.prune();
  }

  /** Forgets a deleted pod. */
  forget(pod: Pod): void {
    this.downAt.delete(pod.metadata?.uid ?? '');
  }

  /** Whether the pod went down after `recordedMs` and is available now. */
  isBack(pod: Pod, recordedMs: number, available: (pod: Pod) => boolean): boolean {
    const down = this.downAt.get(pod.metadata?.uid ?? '');
    return down !== undefined && down > recordedMs && available(pod);
  }

  /** How many pods it remembers. */
  get size(): number {
    return this.downAt.size;
  }

  private prune(): void {
    const oldest = this.now() - KEEP_MS;
    for (const [uid, at] of this.downAt) if (at < oldest) this.downAt.delete(uid);
  }
}
