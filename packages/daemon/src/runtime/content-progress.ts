import type { CriClient } from '@kruise/cri/client';
import type { PullProgress } from './image-service.ts';

interface Pull {
  startedAt: number;
  ingests: Map<string, { offset: number; total: number }>;
  listener: (p: PullProgress) => void;
  best: number;
}

/**
 * Live byte progress of CRI pulls on containerd: polls the content service's in-progress ingests
 * while any pull runs and attributes each ingest to the latest pull that had started when the
 * ingest began (exact for one pull at a time; an estimate when pulls overlap). An ingest that
 * disappears has been committed and counts as complete.
 */
export class ContentProgressTracker {
  private readonly cri: CriClient;
  private readonly intervalMs: number;
  private readonly pulls = new Set<Pull>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(cri: CriClient, intervalMs = 250) {
    this.cri = cri;
    this.intervalMs = intervalMs;
  }

  /** Follows one pull until the returned function is called. */
  track(listener: (p: PullProgress) => void): () => void {
    const pull: Pull = { startedAt: Date.now() - 50, ingests: new Map(), listener, best: 0 };
    this.pulls.add(pull);
    this.timer ??= setInterval(() => void this.poll(), this.intervalMs);
    return () => {
      this.pulls.delete(pull);
      if (this.pulls.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  private owner(startedAtMs: number): Pull | undefined {
    let best: Pull | undefined;
    for (const p of this.pulls)
      if (p.startedAt <= startedAtMs && (!best || p.startedAt > best.startedAt)) best = p;
    return best ?? [...this.pulls][0];
  }

  private async poll(): Promise<void> {
    if (this.polling || this.pulls.size === 0) return;
    this.polling = true;
    try {
      const { statuses } = await this.cri.contentStatuses({ timeoutMs: 2000 });
      const active = new Set<string>();
      for (const s of statuses) {
        active.add(s.ref);
        const started =
          Number(s.startedAt?.seconds ?? 0) * 1000 + Math.floor((s.startedAt?.nanos ?? 0) / 1e6);
        const known = [...this.pulls].find((p) => p.ingests.has(s.ref)) ?? this.owner(started);
        known?.ingests.set(s.ref, { offset: Number(s.offset), total: Number(s.total) });
      }
      for (const p of this.pulls) {
        for (const [ref, i] of p.ingests) if (!active.has(ref)) i.offset = i.total;
        let bytes = 0;
        let total = 0;
        for (const i of p.ingests.values()) {
          bytes += i.offset;
          total += i.total;
        }
        if (total === 0) continue;
        const percent = Math.min(99, Math.floor((bytes / total) * 100));
        p.best = Math.max(p.best, percent);
        p.listener({ bytes, total, percent: p.best });
      }
    } catch {
      // progress is best effort: the pull itself reports success or failure
    } finally {
      this.polling = false;
    }
  }
}
