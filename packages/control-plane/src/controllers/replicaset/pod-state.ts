import type { KubeObject } from '../../registry/types.ts';

/** A pod condition as kubelet reports it. */
interface PodCondition {
  type?: string;
  status?: string;
  lastTransitionTime?: string;
}

/** Whether a pod still counts toward its controller (not finished, not being deleted): controller.IsPodActive. */
export function isPodActive(pod: KubeObject): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata?.deletionTimestamp;
}

function readyCondition(pod: KubeObject): PodCondition | undefined {
  return ((pod.status?.conditions ?? []) as PodCondition[]).find((c) => c?.type === 'Ready');
}

/** Whether the pod's Ready condition is True. */
export function isPodReady(pod: KubeObject): boolean {
  return readyCondition(pod)?.status === 'True';
}

/** When a ready pod became ready (ms since the epoch), or undefined. */
export function podReadyTime(pod: KubeObject): number | undefined {
  const c = readyCondition(pod);
  if (c?.status !== 'True' || !c.lastTransitionTime) return undefined;
  const t = Date.parse(c.lastTransitionTime);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * podutil.IsPodAvailable: ready, and ready for at least `minReadySeconds` by `now` (a pod with
 * no transition time counts as available only when minReadySeconds is 0).
 */
export function isPodAvailable(pod: KubeObject, minReadySeconds: number, now: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const since = podReadyTime(pod);
  return since !== undefined && since + minReadySeconds * 1000 <= now;
}

/** The highest restart count of the pod's containers (init containers included). */
export function maxContainerRestarts(pod: KubeObject): number {
  let max = 0;
  for (const list of [pod.status?.initContainerStatuses, pod.status?.containerStatuses])
    for (const s of list ?? []) max = Math.max(max, Number(s?.restartCount ?? 0));
  return max;
}
