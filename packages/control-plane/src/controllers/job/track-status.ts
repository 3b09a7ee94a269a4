import type { KubeObject } from '../../registry/types.ts';
import { ensureCondition, hasTrueCondition, type JobCondition, newCondition } from './conditions.ts';
import { matchFailurePolicy } from './failure-policy.ts';
import { countIndexes, formatIndexes, hasIndex, withIndexes } from './indexes.ts';
import { completionIndex, hasTrackingFinalizer, isPodFailed } from './job-pods.ts';
import {
  isIndexed,
  type JobActions,
  onlyReplaceFailed,
  type SyncState,
  uid,
  validIndex,
} from './sync-state.ts';

/** Moves uncounted UIDs whose pods lost their finalizer into the counters. */
function cleanUncounted(status: KubeObject, withFinalizer: Set<string>): boolean {
  const u = status.uncountedTerminatedPods;
  let changed = false;
  for (const [list, counter] of [
    ['succeeded', 'succeeded'],
    ['failed', 'failed'],
  ] as const) {
    const before: string[] = u[list] ?? [];
    const kept = before.filter((x) => withFinalizer.has(x));
    if (kept.length === before.length) continue;
    changed = true;
    status[counter] = (status[counter] ?? 0) + before.length - kept.length;
    if (kept.length) u[list] = kept;
    else delete u[list];
  }
  return changed;
}

/**
 * trackJobStatusAndRemoveFinalizers: records finished pods in uncountedTerminatedPods, removes
 * their finalizers, moves them into the counters, and adds the final condition once nothing is
 * left uncounted or terminating.
 */
export async function trackStatus(s: SyncState, act: JobActions, needsUpdate: boolean): Promise<void> {
  const { status } = s;
  let job = s.job;
  let flush = needsUpdate;
  const indexed = isIndexed(job);
  const pods = indexed ? [...s.pods].sort((a, b) => completionIndex(a) - completionIndex(b)) : s.pods;
  const withFinalizer = new Set(pods.filter(hasTrackingFinalizer).map(uid));
  if (cleanUncounted(status, withFinalizer)) flush = true;
  const uncounted = status.uncountedTerminatedPods;
  const toRelease: KubeObject[] = [];
  const newIndexes: number[] = [];
  for (const pod of pods) {
    if (!hasTrackingFinalizer(pod)) continue;
    const failed = isPodFailed(pod, onlyReplaceFailed(job));
    const releasable =
      job.metadata?.deletionTimestamp ||
      s.finished ||
      pod.status?.phase === 'Succeeded' ||
      (failed && uid(s.delayed.get(completionIndex(pod)) ?? {}) !== uid(pod));
    if (!releasable) continue;
    toRelease.push(pod);
    if (pod.status?.phase === 'Succeeded' && !s.uncountedFailed.has(uid(pod))) {
      if (indexed) {
        const ix = completionIndex(pod);
        if (validIndex(job, pod) && !hasIndex(s.prevSucceededIndexes, ix)) {
          newIndexes.push(ix);
          flush = true;
        }
      } else if (!s.uncountedSucceeded.has(uid(pod))) {
        flush = true;
        uncounted.succeeded = [...(uncounted.succeeded ?? []), uid(pod)];
      }
    } else if (failed || (s.finished && s.finished.type !== 'SuccessCriteriaMet')) {
      if (s.uncountedFailed.has(uid(pod)) || (indexed && !validIndex(job, pod))) continue;
      if (matchFailurePolicy(job, pod).counts) {
        flush = true;
        uncounted.failed = [...(uncounted.failed ?? []), uid(pod)];
      }
    }
  }
  if (indexed) {
    s.succeededIndexes = withIndexes(s.succeededIndexes, newIndexes);
    const text = formatIndexes(s.succeededIndexes);
    if (text !== (status.completedIndexes ?? '')) flush = true;
    status.succeeded = countIndexes(s.succeededIndexes);
    if (text) status.completedIndexes = text;
    else delete status.completedIndexes;
    if (s.failedIndexes) {
      const failedText = formatIndexes(s.failedIndexes);
      if (failedText !== status.failedIndexes) flush = true;
      status.failedIndexes = failedText;
    }
  }
  if (!status.succeeded) delete status.succeeded;
  status.conditions ??= [];
  const conditions: JobCondition[] = status.conditions;
  if (s.finished?.type === 'FailureTarget') {
    conditions.push(s.finished);
    flush = true;
    s.finished = newCondition('Failed', 'True', s.finished.reason, s.finished.message);
  }
  if (s.finished?.type === 'SuccessCriteriaMet') {
    if (!hasTrueCondition({ status }, 'SuccessCriteriaMet')) {
      conditions.push(s.finished);
      flush = true;
    }
    s.finished = newCondition('Complete', 'True', s.finished.reason, s.finished.message);
  }
  if (!conditions.length) delete status.conditions;
  if (flush) {
    job = await act.writeStatus(job, status);
    act.saveRecord(s.newRecord);
    flush = false;
  }
  for (const pod of toRelease) if (await act.removeFinalizer(pod)) withFinalizer.delete(uid(pod));
  if (cleanUncounted(status, withFinalizer)) flush = true;
  if (!status.failed) delete status.failed;
  const finished = enactFinished(s, status);
  if (finished) flush = true;
  if (!flush) return;
  job = await act.writeStatus(job, status);
  if (!finished || !s.finished) return;
  if (s.finished.type === 'Complete') {
    const completions = job.spec?.completions;
    if (completions != null && (status.succeeded ?? 0) > completions)
      act.event(
        job,
        'Warning',
        'TooManySucceededPods',
        'Too many succeeded pods running after completion count reached',
      );
    act.event(job, 'Normal', 'Completed', 'Job completed');
  } else act.event(job, 'Warning', s.finished.reason ?? 'Failed', s.finished.message ?? '');
}

/** enactJobFinished: the Complete or Failed condition, once nothing is uncounted or terminating. */
function enactFinished(s: SyncState, status: KubeObject): boolean {
  const done = s.finished;
  if (!done) return false;
  const u = status.uncountedTerminatedPods;
  if ((u.succeeded?.length ?? 0) + (u.failed?.length ?? 0) > 0) return false;
  if (s.terminating > 0) return false;
  status.conditions ??= [];
  const conditions: JobCondition[] = status.conditions;
  ensureCondition(conditions, done.type, done.status, done.reason ?? '', done.message ?? '');
  if (done.type === 'Complete')
    status.completionTime = conditions.find((c) => c.type === 'Complete')?.lastTransitionTime;
  return true;
}
