import { describe, expect, it } from 'vitest';
import { ContentProgressTracker, type IngestSource } from '../src/runtime/content-progress.ts';
import type { PullProgress } from '../src/runtime/image-service.ts';

/** containerd's ingests as successive polls see them: `[kind-digest, offset, total]`. */
function ingests(polls: [string, number, number][][]): IngestSource {
  let i = 0;
  return {
    contentStatuses: async () => ({
      statuses: (polls[Math.min(i++, polls.length - 1)] ?? []).map(([ref, offset, total]) => ({
        ref,
        offset: String(offset),
        total: String(total),
      })),
    }),
  };
}

const hour = 3_600_000;

describe('ContentProgressTracker', () => {
  it('gives overlapping pulls only their own bytes, never those of downloads other clients started', async () => {
    const source = ingests([
      [
        ['manifest-sha256:ma', 500, 500],
        ['layer-sha256:a1', 50, 100],
        ['layer-sha256:b1', 10, 100],
        ['layer-sha256:kubelet', 500, 1000],
      ],
      [
        ['layer-sha256:a2', 20, 200],
        ['layer-sha256:b1', 60, 100],
        ['layer-sha256:kubelet', 900, 1000],
        ['layer-sha256:other', 1, 10_000],
      ],
      [['layer-sha256:kubelet', 1000, 1000]],
    ]);
    const tracker = new ContentProgressTracker(source, hour);
    const a: PullProgress[] = [];
    const b: PullProgress[] = [];
    const untrackA = tracker.track(
      () => new Set(['sha256:ma', 'sha256:a1', 'sha256:a2']),
      (p) => a.push(p),
    );
    const untrackB = tracker.track(
      () => new Set(['sha256:b1']),
      (p) => b.push(p),
    );
    await tracker.poll();
    // A: its manifest (500 of 500) and a1 (50 of 100); B: b1 only.
    expect(a.at(-1)).toEqual({ bytes: 550, total: 600, percent: 91 });
    expect(b.at(-1)).toEqual({ bytes: 10, total: 100, percent: 10 });
    await tracker.poll();
    // A: manifest and a1 committed (gone from the ingests) count whole, a2 has begun.
    expect(a.at(-1)).toEqual({ bytes: 620, total: 800, percent: 91 });
    expect(b.at(-1)).toEqual({ bytes: 60, total: 100, percent: 60 });
    await tracker.poll();
    expect(a.at(-1)).toEqual({ bytes: 800, total: 800, percent: 99 });
    expect(b.at(-1)).toEqual({ bytes: 100, total: 100, percent: 99 });
    untrackA();
    untrackB();
  });

  it('counts nothing for a pull until its blobs are known, and a shared blob for both pulls', async () => {
    const source = ingests([
      [
        ['layer-sha256:base', 30, 100],
        ['layer-sha256:kubelet', 5, 10],
      ],
      [['layer-sha256:base', 80, 100]],
    ]);
    const tracker = new ContentProgressTracker(source, hour);
    let known: Set<string> | undefined;
    const first: PullProgress[] = [];
    const second: PullProgress[] = [];
    const untrack1 = tracker.track(
      () => known,
      (p) => first.push(p),
    );
    const untrack2 = tracker.track(
      () => new Set(['sha256:base']),
      (p) => second.push(p),
    );
    await tracker.poll();
    expect(first).toEqual([]);
    expect(second).toEqual([{ bytes: 30, total: 100, percent: 30 }]);
    known = new Set(['sha256:base', 'sha256:own']);
    await tracker.poll();
    expect(first).toEqual([{ bytes: 80, total: 100, percent: 80 }]);
    expect(second.at(-1)).toEqual({ bytes: 80, total: 100, percent: 80 });
    untrack1();
    untrack2();
  });

  it('never reports progress going backwards', async () => {
    const source = ingests([[['layer-sha256:x', 90, 100]], [['layer-sha256:x', 10, 100]]]);
    const tracker = new ContentProgressTracker(source, hour);
    const seen: number[] = [];
    const untrack = tracker.track(
      () => new Set(['sha256:x']),
      (p) => seen.push(p.percent),
    );
    await tracker.poll();
    await tracker.poll();
    expect(seen).toEqual([90, 90]);
    untrack();
  });
});
