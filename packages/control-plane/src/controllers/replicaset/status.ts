import { labelSelectorMatches } from '@kruise/kube-compat/label-selector';
import { nowRFC3339 } from '../../api/context.ts';
import type { KubeObject } from '../../registry/types.ts';
import { isPodAvailable, isPodReady, podReadyTime } from './pod-state.ts';

/** A ReplicaSet condition (ReplicaFailure is the only type). */
export interface ReplicaSetCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** What went wrong creating or deleting pods in the last sync. */
export interface ManageFailure {
  reason: 'FailedCreate' | 'FailedDelete';
  message: string;
}

/**
 * The ReplicaSet's status from its active pods, as kube-controller-manager computes it: replicas,
 * fullyLabeledReplicas (labels match the template's), readyReplicas, availableReplicas (ready for
 * minReadySeconds), observedGeneration, and the ReplicaFailure condition while creating or
 * deleting fails.
 */
export function replicaSetStatus(
  rs: KubeObject,
  pods: KubeObject[],
  failure: ManageFailure | undefined,
  now = Date.now(),
): Record<string, unknown> {
  const minReady = Number(rs.spec?.minReadySeconds ?? 0);
  const templateLabels = rs.spec?.template?.metadata?.labels ?? {};
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of pods) {
    if (labelSelectorMatches({ matchLabels: templateLabels }, pod.metadata?.labels)) fullyLabeled++;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReady, now)) available++;
    }
  }
  let conditions: ReplicaSetCondition[] = [...(rs.status?.conditions ?? [])];
  const existing = conditions.find((c) => c.type === 'ReplicaFailure');
  if (failure && !existing) {
    conditions.push({
      type: 'ReplicaFailure',
      status: 'True',
      lastTransitionTime: nowRFC3339(),
      reason: failure.reason,
      message: failure.message,
    });
  } else if (!failure && existing) conditions = conditions.filter((c) => c.type !== 'ReplicaFailure');
  const status: Record<string, unknown> = {
    replicas: pods.length,
    fullyLabeledReplicas: fullyLabeled,
    readyReplicas: ready,
    availableReplicas: available,
    observedGeneration: rs.metadata?.generation,
  };
  if (conditions.length) status.conditions = conditions;
  return status;
}

/** Milliseconds until the next ready pod becomes available, if any waits for minReadySeconds. */
export function nextAvailableIn(rs: KubeObject, pods: KubeObject[], now = Date.now()): number | undefined {
  const minReady = Number(rs.spec?.minReadySeconds ?? 0);
  if (minReady <= 0) return undefined;
  let soonest: number | undefined;
  for (const pod of pods) {
    const since = podReadyTime(pod);
    if (since === undefined || isPodAvailable(pod, minReady, now)) continue;
    const wait = since + minReady * 1000 - now + 1;
    soonest = soonest === undefined ? wait : Math.min(soonest, wait);
  }
  return soonest;
}
