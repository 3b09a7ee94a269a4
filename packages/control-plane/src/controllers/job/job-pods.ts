import type { KubeObject } from '../../registry/types.ts';

/** The finalizer the Job controller puts on its pods until it has counted them. */
export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
/** Annotation (and label) carrying an Indexed Job pod's completion index. */
export const COMPLETION_INDEX_KEY = 'batch.kubernetes.io/job-completion-index';
/** Annotation counting the failures of an index so far (backoffLimitPerIndex). */
export const INDEX_FAILURE_COUNT_KEY = 'batch.kubernetes.io/job-index-failure-count';
/** Annotation counting the failures of an index a podFailurePolicy Ignore rule matched. */
export const INDEX_IGNORED_FAILURE_COUNT_KEY = 'batch.kubernetes.io/job-index-ignored-failure-count';

const TERMINAL = new Set(['Succeeded', 'Failed']);

/** controller.FilterActivePods: neither terminal nor being deleted. */
export function isActive(pod: KubeObject): boolean {
  return !TERMINAL.has(pod.status?.phase) && !pod.metadata?.deletionTimestamp;
}

/** controller.CountTerminatingPods' test: being deleted and not yet terminal. */
export function isTerminating(pod: KubeObject): boolean {
  return Boolean(pod.metadata?.deletionTimestamp) && !TERMINAL.has(pod.status?.phase);
}

/** The pod's Ready condition is True. */
export function isReady(pod: KubeObject): boolean {
  return (pod.status?.conditions ?? []).some(
    (c: { type?: string; status?: string }) => c.type === 'Ready' && c.status === 'True',
  );
}

/** Whether the pod still carries the tracking finalizer. */
export function hasTrackingFinalizer(pod: KubeObject): boolean {
  return (pod.metadata?.finalizers ?? []).includes(JOB_TRACKING_FINALIZER);
}

/**
 * isPodFailed: phase Failed, or — unless only Failed pods are replaced — deleted before it
 * succeeded (an orphan that never reaches a terminal phase).
 */
export function isPodFailed(pod: KubeObject, onlyReplaceFailed: boolean): boolean {
  if (pod.status?.phase === 'Failed') return true;
  if (onlyReplaceFailed) return false;
  return Boolean(pod.metadata?.deletionTimestamp) && pod.status?.phase !== 'Succeeded';
}

/** The completion index from the annotation, or -1 when absent or malformed. */
export function completionIndex(pod: KubeObject): number {
  const text = pod.metadata?.annotations?.[COMPLETION_INDEX_KEY];
  if (text === undefined || !/^(0|[1-9]\d*)$/.test(text)) return -1;
  return Number(text);
}

/**
 * getFinishedTime: the latest container finish, else the Ready=False transition, else the
 * deletion time less the grace period, else the creation time (epoch ms).
 */
export function finishedTime(pod: KubeObject): number {
  const statuses: { state?: { terminated?: { finishedAt?: string } } }[] =
    pod.status?.containerStatuses ?? [];
  let latest: number | undefined;
  let allFinished = statuses.length > 0;
  for (const s of statuses) {
    const at = Date.parse(s.state?.terminated?.finishedAt ?? '');
    if (Number.isNaN(at)) {
      allFinished = false;
      break;
    }
    latest = Math.max(latest ?? at, at);
  }
  if (allFinished && latest !== undefined) return latest;
  const ready = (pod.status?.conditions ?? []).find((c: { type?: string }) => c.type === 'Ready');
  if (ready?.status === 'False' && ready.lastTransitionTime) return Date.parse(ready.lastTransitionTime);
  if (pod.metadata?.deletionTimestamp)
    return Date.parse(pod.metadata.deletionTimestamp) - (pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000;
  return Date.parse(pod.metadata?.creationTimestamp ?? '') || Date.now();
}

/** Orders pods for removal as controller.ActivePods does: unscheduled, pending, not ready, newest first. */
export function removalOrder(a: KubeObject, b: KubeObject): number {
  const scheduled = (p: KubeObject) => (p.spec?.nodeName ? 1 : 0);
  if (scheduled(a) !== scheduled(b)) return scheduled(a) - scheduled(b);
  const rank: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };
  const phase = (p: KubeObject) => rank[p.status?.phase ?? 'Pending'] ?? 0;
  if (phase(a) !== phase(b)) return phase(a) - phase(b);
  const ready = (p: KubeObject) => (isReady(p) ? 1 : 0);
  if (ready(a) !== ready(b)) return ready(a) - ready(b);
  return Date.parse(b.metadata?.creationTimestamp ?? '') - Date.parse(a.metadata?.creationTimestamp ?? '');
}
