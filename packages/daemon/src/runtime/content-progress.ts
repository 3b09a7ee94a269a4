import type { PullProgress } from './image-service.ts';

/** containerd's in-progress ingests (its content service's ListStatuses). */
export interface IngestSource {
  contentStatuses(options?: { timeoutMs?: number }): Promise<{
    statuses: { ref: string; offset: string | number; total: string | number }[];
  }>;
}

/** The blobs a pull downloads (digests), once known. */
export type PullBlobs = () => ReadonlySet<string> | undefined;

interface Pull {
  blobs: PullBlobs;
  ingests: Map<string, { offset: number; total: number }>;
  listener: (p: PullProgress) => void;
  best: number;
}

/** The digest of an ingest: containerd names them `<kind>-<digest>` (`layer-sha256:…`). */
const ingestDigest = (ref: string) => ref.slice(ref.indexOf('-') + 1);

/**
 * Live byte progress of CRI pulls on containerd: polls the content service's in-progress ingests
 * while any pull runs, and gives each pull the ingests of its own blobs only (by digest), so
 * pulls that overlap, and downloads other clients started (kubelet's, another daemon's), never
 * count for it. An ingest that disappears has been committed and counts as complete. A blob two
 * pulls share counts for both.
 */
export class ContentProgressTracker {
  private readonly source: IngestSource;
  private readonly intervalMs: number;
  private readonly pulls = new Set<Pull>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(source: IngestSource, intervalMs: number) {
    this.source = source;
    this.intervalMs = intervalMs;
  }

  /** Follows one pull (whose blobs `blobs` names once known) until the returned function is called. */
  track(blobs: PullBlobs, listener: (p: PullProgress) => void): () => void {
    const pull: Pull = { blobs, ingests: new Map(), listener, best: 0 };
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

  /** One look at the ingests; each pull hears its own bytes. */
  async poll(): Promise<void> {
    if (this.polling || this.pulls.size === 0) return;
    this.polling = true;
    try {
      const { statuses } = await this.source.contentStatuses({ timeoutMs: 2000 });
      const active = new Set<string>();
      for (const s of statuses) {
        active.add(s.ref);
        const digest = ingestDigest(s.ref);
        for (const p of this.pulls)
          if (p.blobs()?.has(digest))
            p.ingests.set(s.ref, { offset: Number(s.offset), total: Number(s.total) });
      }
      for (const p of this.pulls) report(p, active);
    } catch {
      // progress is best effort: the pull itself reports success or failure
    } finally {
      this.polling = false;
    }
  }
}

function report(p: Pull, active: ReadonlySet<string>): void {
  let bytes = 0;
  let total = 0;
  for (const [ref, i] of p.ingests) {
    if (!active.has(ref)) i.offset = i.total;
    bytes += i.offset;
    total += i.total;
  }
  if (total === 0) return;
  const percent = Math.min(99, Math.floor((bytes / total) * 100));
  p.best = Math.max(p.best, percent);
  p.listener({ bytes, total, percent: p.best });
}
