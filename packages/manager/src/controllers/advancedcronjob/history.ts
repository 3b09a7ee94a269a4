import type { KubeObject } from '@kruise/runtime';

const startTime = (job: KubeObject) => {
  const t = Date.parse(job.status?.startTime ?? '');
  return Number.isNaN(t) ? undefined : t;
};

/**
 * The finished runs beyond a history limit, oldest first (by start time; runs that never started
 * count as oldest), as upstream prunes them. No limit keeps every run.
 */
export function runsBeyondLimit(finished: KubeObject[], limit: number | undefined): KubeObject[] {
  if (limit == null) return [];
  const sorted = [...finished].sort((a, b) => {
    const ta = startTime(a);
    const tb = startTime(b);
    if (ta === undefined) return tb === undefined ? 0 : -1;
    if (tb === undefined) return 1;
    return ta - tb;
  });
  return sorted.slice(0, Math.max(0, sorted.length - limit));
}
