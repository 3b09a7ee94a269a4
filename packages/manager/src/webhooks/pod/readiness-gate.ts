import { GROUP, KRUISE_POD_READY_CONDITION } from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';

/** Whether the pod's controller owner reference is a Kruise workload (group apps.kruise.io). */
export function isOwnedByKruise(pod: Pod): boolean {
  const owner = pod.metadata?.ownerReferences?.find((r) => r.controller);
  return owner !== undefined && owner.apiVersion.split('/')[0] === GROUP;
}

/**
 * Adds the `KruisePodReady` readiness gate to pods of Kruise workloads (to every pod with gate
 * KruisePodReadinessGate). Returns whether the pod changed. Mutates `pod`.
 */
export function injectKruisePodReadyGate(pod: Pod, allPods: boolean): boolean {
  if (!allPods && !isOwnedByKruise(pod)) return false;
  pod.spec ??= { containers: [] };
  const gates = pod.spec.readinessGates ?? [];
  if (!gates.some((g) => g.conditionType === KRUISE_POD_READY_CONDITION))
    pod.spec.readinessGates = [...gates, { conditionType: KRUISE_POD_READY_CONDITION }];
  return true;
}
