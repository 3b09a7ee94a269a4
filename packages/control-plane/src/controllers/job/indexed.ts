import type { KubeObject } from '../../registry/types.ts';
import { matchFailurePolicy } from './failure-policy.ts';
import { hasIndex, type IndexIntervals, parseIndexes, withIndexes } from './indexes.ts';
import {
  completionIndex,
  finishedTime,
  hasTrackingFinalizer,
  INDEX_FAILURE_COUNT_KEY,
  INDEX_IGNORED_FAILURE_COUNT_KEY,
  isPodFailed,
  isTerminating,
  removalOrder,
} from './job-pods.ts';
import { completionsOf, onlyReplaceFailed } from './sync-state.ts';

const count = (pod: KubeObject, key: string): number => {
  const n = Number(pod.metadata?.annotations?.[key] ?? 0);
  return Number.isInteger(n) && n >= 0 ? n : 0;
};

/** An index's failures so far, counted and ignored, as the pod's annotations carry them. */
export function absoluteFailureCount(pod: KubeObject): number {
  return count(pod, INDEX_FAILURE_COUNT_KEY) + count(pod, INDEX_IGNORED_FAILURE_COUNT_KEY);
}

/** isIndexFailed: a FailIndex rule matched, or a counted failure used up backoffLimitPerIndex. */
function indexFailed(job: KubeObject, pod: KubeObject): boolean {
  if (!isPodFailed(pod, onlyReplaceFailed(job))) return false;
  const match = matchFailurePolicy(job, pod);
  if (match.action === 'FailIndex') return true;
  return match.counts && count(pod, INDEX_FAILURE_COUNT_KEY) >= (job.spec?.backoffLimitPerIndex ?? 0);
}

/**
 * backoffLimitPerIndex: the failed indexes (the status's and those of failed pods still tracked),
 * and per other index not running the latest failed pod, kept (finalizer and all) until its replacement exists.
 */
export function failedIndexes(
  job: KubeObject,
  pods: KubeObject[],
  active: KubeObject[],
  previous: string | undefined,
  succeeded: IndexIntervals,
): { failed: IndexIntervals; delayed: Map<number, KubeObject> } {
  const completions = completionsOf(job);
  const valid = (p: KubeObject) => completionIndex(p) >= 0 && completionIndex(p) < completions;
  const fresh = pods
    .filter((p) => hasTrackingFinalizer(p) && valid(p) && indexFailed(job, p))
    .map(completionIndex);
  const failed = withIndexes(parseIndexes(previous, completions), fresh);
  // A failed pod whose index runs again is replaced already: it need not wait.
  const running = new Set(active.map(completionIndex));
  const delayed = new Map<number, KubeObject>();
  for (const p of pods) {
    const ix = completionIndex(p);
    if (!valid(p) || hasIndex(succeeded, ix) || hasIndex(failed, ix) || running.has(ix)) continue;
    if (!isPodFailed(p, onlyReplaceFailed(job)) || !hasTrackingFinalizer(p)) continue;
    const last = delayed.get(ix);
    if (
      !last ||
      (absoluteFailureCount(last) <= absoluteFailureCount(p) && finishedTime(p) >= finishedTime(last))
    )
      delayed.set(ix, p);
  }
  return { failed, delayed };
}

/** The failure-count annotations of the pod that replaces `replaced` (none without backoffLimitPerIndex). */
export function replacementAnnotations(
  job: KubeObject,
  replaced: KubeObject | undefined,
): Record<string, string> {
  if (job.spec?.backoffLimitPerIndex == null) return {};
  let failures = 0;
  let ignored = 0;
  if (replaced) {
    failures = count(replaced, INDEX_FAILURE_COUNT_KEY);
    ignored = count(replaced, INDEX_IGNORED_FAILURE_COUNT_KEY);
    if (matchFailurePolicy(job, replaced).counts) failures++;
    else ignored++;
  }
  const out: Record<string, string> = { [INDEX_FAILURE_COUNT_KEY]: String(failures) };
  if (ignored > 0) out[INDEX_IGNORED_FAILURE_COUNT_KEY] = String(ignored);
  return out;
}

/** firstPendingIndexes: the lowest indexes neither succeeded, active, failed nor (Failed policy) terminating. */
export function firstPendingIndexes(
  job: KubeObject,
  s: {
    active: KubeObject[];
    pods: KubeObject[];
    succeededIndexes: IndexIntervals;
    failedIndexes?: IndexIntervals;
  },
  wanted: number,
): number[] {
  const taken = new Set<number>(s.active.map(completionIndex));
  if (onlyReplaceFailed(job)) for (const p of s.pods.filter(isTerminating)) taken.add(completionIndex(p));
  const out: number[] = [];
  for (let ix = 0; ix < completionsOf(job) && out.length < wanted; ix++) {
    if (
      taken.has(ix) ||
      hasIndex(s.succeededIndexes, ix) ||
      (s.failedIndexes && hasIndex(s.failedIndexes, ix))
    )
      continue;
    out.push(ix);
  }
  return out;
}

/** Active pods with no valid index, and all but the most advanced pod of an index held twice. */
export function indexesToRemove(job: KubeObject, active: KubeObject[]): KubeObject[] {
  const byIndex = new Map<number, KubeObject[]>();
  const remove: KubeObject[] = [];
  for (const p of active) {
    const ix = completionIndex(p);
    if (ix < 0 || ix >= completionsOf(job)) remove.push(p);
    else byIndex.set(ix, [...(byIndex.get(ix) ?? []), p]);
  }
  for (const pods of byIndex.values()) remove.push(...pods.sort(removalOrder).slice(0, -1));
  return remove;
}
