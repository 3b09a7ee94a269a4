import { GROUP, KRUISE_POD_READY_CONDITION } from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';

/** Whether the pod's controller owner reference is a Kruise workload (group apps.kruise.io). */
export function isOwnedByKruise(pod: Pod): boolean {
  const owner = pod.metadata?.ownerReferences?.find((r) => r.controller);
  return owner !== undefined && owner.apiVersion.split('/')[0] === GROUP;
}

/**
 * Adds the `KruisePodReady` readiness gate to pods of Kruise workloads (to every pod with gate
 * KruisePodReadinessGate; `allPods`), after the gates the pod has. Returns whether the pod changed.
 * Mutates `pod`. The pod webhook and the workloads creating pods share it.
 */
export function injectKruisePodReadyGate(pod: Pod, allPods: boolean): boolean {
  if (!allPods && !isOwnedByKruise(pod)) return false;
  pod.spec ??= { containers: [] };
  const gates = pod.spec.readinessGates ?? [];
  if (gates.some((g) => g.conditionType === KRUISE_POD_READY_CONDITION)) return false;
  pod.spec.readinessGates = [...gates, { conditionType: KRUISE_POD_READY_CONDITION }];
  return true;
}
