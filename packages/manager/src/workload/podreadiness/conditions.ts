import { kubeTime } from '@kruise/kube-compat';
import type { Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import { mutableStatus } from '../pod-state.ts';

/**
 * Sets a condition in the pod's status (upstream's util.SetPodCondition): an existing condition
 * of the type is replaced only when its status changes. Mutates `pod`.
 */
export function setPodCondition(pod: Pod, condition: PodCondition): void {
  const status = mutableStatus(pod);
  const conditions = status.conditions ?? [];
  status.conditions = conditions;
  const i = conditions.findIndex((c) => c.type === condition.type);
  if (i === -1) conditions.push(condition);
  else if (conditions[i]!.status !== condition.status) conditions[i] = condition;
}

/**
 * Recomputes the pod's Ready condition from its readiness gates as kubelet would (upstream's
 * util.SetPodReadyCondition), when the pod has a Ready condition and its containers are ready:
 * False with kubelet's message naming each gate that is missing or not True. Mutates `pod`.
 */
export function recomputeReadyCondition(pod: Pod, now = kubeTime()): void {
  const conditions = pod.status?.conditions ?? [];
  const get = (type: string) => conditions.find((c) => c.type === type);
  if (!get('Ready') || get('ContainersReady')?.status !== 'True') return;
  const unready: string[] = [];
  for (const gate of pod.spec?.readinessGates ?? []) {
    const c = get(gate.conditionType);
    if (!c)
      unready.push(`corresponding condition of pod readiness gate "${gate.conditionType}" does not exist.`);
    else if (c.status !== 'True')
      unready.push(`the status of pod readiness gate "${gate.conditionType}" is not "True", but ${c.status}`);
  }
  setPodCondition(
    pod,
    unready.length
      ? { type: 'Ready', status: 'False', reason: 'ReadinessGatesNotReady', message: unready.join(', ') }
      : { type: 'Ready', status: 'True', lastTransitionTime: now },
  );
}

/** Whether the pod declares a readiness gate of this condition type. */
export function hasReadinessGate(pod: Pod, conditionType: string): boolean {
  return (pod.spec?.readinessGates ?? []).some((g) => g.conditionType === conditionType);
}
