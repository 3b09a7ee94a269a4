import type { Pod, PodCondition, PodStatus } from 'kubernetes-types/core/v1.js';

/** Labels that ask a workload to delete a pod (`apps.kruise.io/specified-delete`, any value). */
export const SPECIFIED_DELETE_LABEL = 'apps.kruise.io/specified-delete';

/** The pod's condition of a type. */
export function podCondition(pod: Pod, type: string): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === type);
}

/** Kubernetes' IsPodActive: not Succeeded, not Failed, not being deleted. */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata?.deletionTimestamp;
}

/** Whether the pod's Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return podCondition(pod, 'Ready')?.status === 'True';
}

/** Running with a Ready condition that is True (upstream's util.IsRunningAndReady). */
export function isRunningAndReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && isPodReady(pod);
}

/**
 * Kubernetes' IsPodAvailable: Ready, and Ready for at least `minReadySeconds` (by the condition's
 * lastTransitionTime) when that is above 0.
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  const ready = podCondition(pod, 'Ready');
  if (ready?.status !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = ready.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : Number.NaN;
  return !Number.isNaN(since) && since + minReadySeconds * 1000 < now;
}

/** Running and available (CloneSet's IsRunningAndAvailable). */
export function isRunningAndAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  return pod.status?.phase === 'Running' && isPodAvailable(pod, minReadySeconds, now);
}

/** Whether the pod carries the specified-delete label. */
export function isSpecifiedDelete(pod: Pod): boolean {
  return pod.metadata?.labels?.[SPECIFIED_DELETE_LABEL] !== undefined;
}

/** The pod's status, created when missing, for writing (kubernetes-types marks `status` read-only). */
export function mutableStatus(pod: Pod): PodStatus {
  const p = pod as { status?: PodStatus };
  p.status ??= {};
  return p.status;
}
