import type { Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import { hasReadinessGate } from '../podreadiness/conditions.ts';

/** Readiness gate and condition type of in-place updates. */
export const INPLACE_UPDATE_READY = 'InPlaceUpdateReady';
/** Reason of the False condition while a pod updates in place. */
export const START_INPLACE_UPDATE_REASON = 'StartInPlaceUpdate';

/** The pod's InPlaceUpdateReady condition. */
export function inPlaceUpdateCondition(pod: Pod): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === INPLACE_UPDATE_READY);
}

/** Whether the pod has the InPlaceUpdateReady readiness gate. */
export const hasInPlaceUpdateGate = (pod: Pod) => hasReadinessGate(pod, INPLACE_UPDATE_READY);

/** Adds the InPlaceUpdateReady readiness gate (workloads do it on every pod they create). Mutates `pod`. */
export function injectInPlaceUpdateGate(pod: Pod): void {
  if (hasInPlaceUpdateGate(pod)) return;
  pod.spec ??= { containers: [] };
  pod.spec.readinessGates = [...(pod.spec.readinessGates ?? []), { conditionType: INPLACE_UPDATE_READY }];
}
