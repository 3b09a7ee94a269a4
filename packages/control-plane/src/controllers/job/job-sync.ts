import type { KubeObject } from '../../registry/types.ts';
import {
  type BackoffRecord,
  nextBackoffRecord,
  type PodFailureBackoff,
  remainingBackoff,
} from './backoff.ts';
import { ensureCondition, hasTrueCondition, type JobCondition, newCondition } from './conditions.ts';
import { matchFailurePolicy } from './failure-policy.ts';
import {
  absoluteFailureCount,
  failedIndexes,
  firstPendingIndexes,
  indexesToRemove,
  replacementAnnotations,
} from './indexed.ts';
import {
  countIndexes,
  formatIndexes,
  hasIndex,
  type IndexIntervals,
  parseIndexes,
  withIndexes,
} from './indexes.ts';
import {
  completionIndex,
  hasTrackingFinalizer,
  isActive,
  isPodFailed,
  isReady,
  isTerminating,
  removalOrder,
} from './job-pods.ts';

/** What a Job's sync does to the world; the controller supplies it. */
export interface JobActions {
  /** Creates a pod (index -1 for NonIndexed); resolves false when the API refused it. */
  createPod(job: KubeObject, index: number, annotations?: Record<string, string>): Promise<boolean>;
  /** Deletes a pod; with `dropFinalizer` its tracking finalizer goes first. Resolves whether it is gone or going. */
  deletePod(job: KubeObject, pod: KubeObject, dropFinalizer: boolean): Promise<boolean>;
  /** Removes the tracking finalizer; resolves whether it is gone. */
  removeFinalizer(pod: KubeObject): Promise<boolean>;
  /** Writes `status` to the Job as read (a conflict throws); resolves with the stored Job. */
  writeStatus(job: KubeObject, status: KubeObject): Promise<KubeObject>;
  /** Records an Event on the Job. */
  event(job: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void;
  /** Syncs the Job again after `ms`. */
  requeueAfter(ms: number): void;
  backoff: PodFailureBackoff;
  record: BackoffRecord | undefined;
  saveRecord(record: BackoffRecord): void;
}

const SUSPENDED = 'Suspended';

/** Everything one sync computes about a Job and its pods (upstream's syncJobCtx). */
interface SyncState {
  job: KubeObject;
  status: KubeObject;
  pods: KubeObject[];
  active: KubeObject[];
  ready: number;
  terminating: number;
  uncountedSucceeded: Set<string>;
  uncountedFailed: Set<string>;
  succeeded: number;
  failed: number;
  finished: JobCondition | undefined;
  prevSucceededIndexes: IndexIntervals;
  succeededIndexes: IndexIntervals;
  failedIndexes: IndexIntervals | undefined;
  /** Per index, the latest failed pod whose finalizer waits for its replacement (backoffLimitPerIndex). */
  delayed: Map<number, KubeObject>;
  newRecord: BackoffRecord;
}

const uid = (p: KubeObject): string => p.metadata?.uid;
const isIndexed = (job: KubeObject) => job.spec?.completionMode === 'Indexed';
const suspended = (job: KubeObject) => job.spec?.suspend === true;
const onlyReplaceFailed = (job: KubeObject) => job.spec?.podReplacementPolicy === 'Failed';
const completionsOf = (job: KubeObject): number => job.spec?.completions ?? 0;

function validIndex(job: KubeObject, pod: KubeObject): boolean {
  const ix = completionIndex(pod);
  return ix >= 0 && ix < completionsOf(job);
}

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
      const perIndex = failedIndexes(job, pods, status.failedIndexes, s.succeededIndexes);
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
  if (hasTrueCondition(job, 'SuccessCriteriaMet')) {
    s.finished = newCondition(
      'SuccessCriteriaMet',
      'True',
      'CompletionsReached',
      'Reached expected number of succeeded pods',
    );
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

/** manageJob: deletes surplus (or, suspended, all) active pods, else creates the missing ones after back-off. */
async function manageJob(s: SyncState, act: JobActions): Promise<number> {
  const { job } = s;
  let active = s.active.length;
  const drop = async (pods: KubeObject[]) => {
    for (const p of pods) {
      if (!(await act.deletePod(job, p, true))) continue;
      active--;
      s.terminating++;
      if (isReady(p)) s.ready--;
    }
    return active;
  };
  if (suspended(job)) return drop(s.active);
  const parallelism = job.spec?.parallelism ?? 1;
  const completions = job.spec?.completions;
  let want: number;
  if (completions == null) want = s.succeeded > 0 ? active : parallelism;
  else want = Math.max(0, Math.min(parallelism, completions - s.succeeded));
  const surplus = Math.max(0, active - want);
  const remove = isIndexed(job) ? indexesToRemove(job, s.active) : [];
  if (remove.length < surplus) {
    const left = s.active.filter((p) => !remove.includes(p)).sort(removalOrder);
    remove.push(...left.slice(0, surplus - remove.length));
  }
  if (remove.length) return drop(remove);
  const terminating = onlyReplaceFailed(job) ? s.terminating : 0;
  let diff = want - terminating - active;
  if (diff <= 0) return active;
  if (job.spec?.backoffLimitPerIndex == null) {
    const wait = remainingBackoff(s.newRecord, act.backoff, Date.now());
    if (wait > 0) {
      act.requeueAfter(wait);
      return active;
    }
  }
  let indexes: number[] = [];
  if (isIndexed(job)) {
    indexes = firstPendingIndexes(job, s, Math.min(diff, 500));
    if (job.spec?.backoffLimitPerIndex != null) {
      const ready = indexes.filter((ix) => remainingBackoffPerIndex(s, ix, act) === 0);
      if (!ready.length && indexes.length) {
        act.requeueAfter(Math.min(...indexes.map((ix) => remainingBackoffPerIndex(s, ix, act))));
        return active;
      }
      indexes = ready;
    }
    diff = indexes.length;
  }
  // Slow start: batches of 1, 2, 4 …, stopping after a batch with a refusal.
  for (let batch = Math.min(diff, 1), done = 0; done < diff; batch = Math.min(batch * 2, diff - done)) {
    const results = await Promise.all(
      Array.from({ length: batch }, (_, i) => {
        const ix = isIndexed(job) ? indexes[done + i]! : -1;
        return act.createPod(job, ix, ix >= 0 ? replacementAnnotations(job, s.delayed.get(ix)) : {});
      }),
    );
    done += batch;
    active += results.filter(Boolean).length;
    if (results.some((ok) => !ok)) break;
  }
  return active;
}

function remainingBackoffPerIndex(s: SyncState, index: number, act: JobActions): number {
  const last = s.delayed.get(index);
  if (!last) return 0;
  const failures = absoluteFailureCount(last) + 1;
  return remainingBackoff(
    {
      failuresAfterLastSuccess: failures,
      lastFailureTime: nextBackoffRecord(undefined, [], [last]).lastFailureTime,
    },
    act.backoff,
    Date.now(),
  );
}

/** The Suspended condition, its events, and the new startTime of a resumed Job. */
function syncSuspended(s: SyncState, act: JobActions): boolean {
  s.status.conditions ??= [];
  const conditions: JobCondition[] = s.status.conditions;
  if (suspended(s.job)) {
    if (!ensureCondition(conditions, SUSPENDED, 'True', 'JobSuspended', 'Job suspended')) return false;
    act.event(s.job, 'Normal', 'Suspended', 'Job suspended');
    return true;
  }
  if (!ensureCondition(conditions, SUSPENDED, 'False', 'JobResumed', 'Job resumed')) return false;
  act.event(s.job, 'Normal', 'Resumed', 'Job resumed');
  s.status.startTime = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return true;
}

/**
 * trackJobStatusAndRemoveFinalizers: records finished pods in uncountedTerminatedPods, removes
 * their finalizers, moves them into the counters, and adds the final condition once nothing is
 * left uncounted or terminating.
 */
async function trackStatus(s: SyncState, act: JobActions, needsUpdate: boolean): Promise<void> {
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
      (failed && s.delayed.get(completionIndex(pod)) !== pod);
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
