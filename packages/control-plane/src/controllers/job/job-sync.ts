import type { KubeObject } from '../../registry/types.ts';
import { nextBackoffRecord } from './backoff.ts';
import { findCondition, type JobCondition, newCondition } from './conditions.ts';
import { matchFailurePolicy } from './failure-policy.ts';
import { failedIndexes } from './indexed.ts';
import { countIndexes, parseIndexes, withIndexes } from './indexes.ts';
import {
  completionIndex,
  hasTrackingFinalizer,
  isActive,
  isPodFailed,
  isReady,
  isTerminating,
} from './job-pods.ts';
import { manageJob, syncSuspended } from './manage-pods.ts';
import {
  completionsOf,
  isIndexed,
  type JobActions,
  onlyReplaceFailed,
  type SyncState,
  suspended,
  uid,
  validIndex,
} from './sync-state.ts';
import { trackStatus } from './track-status.ts';

export type { JobActions } from './sync-state.ts';

/** Pods with the tracking finalizer not counted yet that pass `filter`. */
function newlyFinished(
  s: SyncState,
  uncounted: Set<string>,
  filter: (p: KubeObject) => boolean,
): KubeObject[] {
  return s.pods.filter(
    (p) =>
      hasTrackingFinalizer(p) &&
      !uncounted.has(uid(p)) &&
      (!isIndexed(s.job) || validIndex(s.job, p)) &&
      filter(p),
  );
}

function pastBackoffLimitOnFailure(job: KubeObject, pods: KubeObject[]): boolean {
  if (job.spec?.template?.spec?.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const p of pods) {
    if (p.status?.phase !== 'Running' && p.status?.phase !== 'Pending') continue;
    for (const c of [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])])
      restarts += c.restartCount ?? 0;
  }
  const limit = job.spec?.backoffLimit ?? 6;
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

function failureMessageOf(job: KubeObject, pods: KubeObject[]): string | undefined {
  if (!job.spec?.podFailurePolicy) return undefined;
  for (const p of pods) {
    if (!isPodFailed(p, onlyReplaceFailed(job))) continue;
    const m = matchFailurePolicy(job, p).failJobMessage;
    if (m) return m;
  }
  return undefined;
}

/**
 * One sync of a Job as kube-controller-manager's Job controller (Kubernetes 1.33) does it: counts
 * its pods through the tracking finalizer and `status.uncountedTerminatedPods`, creates and deletes
 * pods for parallelism, completions, indexes, suspension and back-off, and finishes the Job with
 * FailureTarget/SuccessCriteriaMet first, then Failed/Complete once no pod is left terminating.
 */
export async function syncJob(job: KubeObject, pods: KubeObject[], act: JobActions): Promise<void> {
  const status: KubeObject = structuredClone(job.status ?? {});
  status.uncountedTerminatedPods ??= {};
  const active = pods.filter(isActive);
  const s: SyncState = {
    job,
    status,
    pods,
    active,
    ready: active.filter(isReady).length,
    terminating: pods.filter(isTerminating).length,
    uncountedSucceeded: new Set(status.uncountedTerminatedPods.succeeded ?? []),
    uncountedFailed: new Set(status.uncountedTerminatedPods.failed ?? []),
    succeeded: 0,
    failed: 0,
    finished: undefined,
    prevSucceededIndexes: [],
    succeededIndexes: [],
    failedIndexes: undefined,
    delayed: new Map(),
    newRecord: { failuresAfterLastSuccess: 0 },
  };
  const newSucceeded = newlyFinished(s, s.uncountedSucceeded, (p) => p.status?.phase === 'Succeeded');
  const newFailed = newlyFinished(s, s.uncountedFailed, (p) => isPodFailed(p, onlyReplaceFailed(job)));
  const counted = newFailed.filter((p) => matchFailurePolicy(job, p).counts).length;
  s.succeeded = (status.succeeded ?? 0) + newSucceeded.length + s.uncountedSucceeded.size;
  s.failed = (status.failed ?? 0) + counted + s.uncountedFailed.size;
  if (!status.startTime && !suspended(job))
    status.startTime = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  s.newRecord = nextBackoffRecord(act.record, newSucceeded, newFailed);

  decideFinished(s, act);
  if (isIndexed(job)) {
    s.prevSucceededIndexes = parseIndexes(status.completedIndexes, completionsOf(job));
    const fresh = pods
      .filter((p) => p.status?.phase === 'Succeeded' && validIndex(job, p) && hasTrackingFinalizer(p))
      .map(completionIndex);
    s.succeededIndexes = withIndexes(s.prevSucceededIndexes, fresh);
    s.succeeded = countIndexes(s.succeededIndexes);
    if (job.spec?.backoffLimitPerIndex != null) {
      const perIndex = failedIndexes(job, pods, active, status.failedIndexes, s.succeededIndexes);
      s.failedIndexes = perIndex.failed;
      s.delayed = perIndex.delayed;
      const total = countIndexes(s.failedIndexes);
      if (!s.finished && job.spec.maxFailedIndexes != null && total > job.spec.maxFailedIndexes)
        s.finished = newCondition(
          'FailureTarget',
          'True',
          'MaxFailedIndexesExceeded',
          'Job has exceeded the specified maximal number of failed indexes',
        );
      else if (!s.finished && total > 0 && total + s.succeeded >= completionsOf(job))
        s.finished = newCondition('FailureTarget', 'True', 'FailedIndexes', 'Job has failed indexes');
    }
  }

  let activeCount = active.length;
  let suspendChanged = false;
  if (s.finished) {
    let deleted = 0;
    for (const p of active) {
      if (await act.deletePod(job, p, false)) {
        deleted++;
        if (isReady(p)) s.ready--;
      }
    }
    if (deleted !== active.length) s.finished = undefined;
    activeCount -= deleted;
    s.terminating += deleted;
  } else {
    const managed = !job.metadata?.deletionTimestamp;
    if (managed) activeCount = await manageJob(s, act);
    const completions = job.spec?.completions;
    const complete =
      completions == null
        ? s.succeeded > 0 && activeCount === 0
        : s.succeeded >= completions && activeCount === 0;
    if (complete)
      s.finished = newCondition(
        'SuccessCriteriaMet',
        'True',
        'CompletionsReached',
        'Reached expected number of succeeded pods',
      );
    else if (managed) suspendChanged = syncSuspended(s, act);
  }
  const ready = Math.max(0, s.ready);
  const needsUpdate =
    suspendChanged ||
    activeCount !== (status.active ?? 0) ||
    ready !== status.ready ||
    s.terminating !== status.terminating;
  if (activeCount) status.active = activeCount;
  else delete status.active;
  status.ready = ready;
  status.terminating = s.terminating;
  await trackStatus(s, act, needsUpdate || !job.status?.startTime);
}

/** The failure (or earlier success) that ends the Job, before pods are managed. */
function decideFinished(s: SyncState, act: JobActions): void {
  const { job, status } = s;
  const met = findCondition(job, 'SuccessCriteriaMet');
  if (met?.status === 'True') {
    s.finished = newCondition('SuccessCriteriaMet', 'True', met.reason, met.message);
    return;
  }
  const target = (status.conditions ?? []).find(
    (c: JobCondition) => c.type === 'FailureTarget' && c.status === 'True',
  );
  if (target) {
    s.finished = newCondition('Failed', 'True', target.reason, target.message);
    return;
  }
  const message = failureMessageOf(job, s.pods);
  if (message) {
    s.finished = newCondition('FailureTarget', 'True', 'PodFailurePolicy', message);
    return;
  }
  const deadline = job.spec?.activeDeadlineSeconds;
  const started = Date.parse(status.startTime ?? '');
  if (s.failed > (job.spec?.backoffLimit ?? 6) || pastBackoffLimitOnFailure(job, s.pods))
    s.finished = newCondition(
      'FailureTarget',
      'True',
      'BackoffLimitExceeded',
      'Job has reached the specified backoff limit',
    );
  else if (deadline != null && !suspended(job) && !Number.isNaN(started)) {
    const left = deadline * 1000 - (Date.now() - started);
    if (left <= 0)
      s.finished = newCondition(
        'FailureTarget',
        'True',
        'DeadlineExceeded',
        'Job was active longer than specified deadline',
      );
    else act.requeueAfter(left);
  }
}
