import type { FeatureGates } from '@kruise/api';
import { kubeletContainerHash } from '@kruise/kube-compat';
import type { Manager } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { managerBudgets } from './manager-budgets.ts';
import { decidePodDisruption } from './pod-disruption.ts';

/** Asks a pod's budget before a workload updates it in place; resolves whether it may go now. */
export type PubUpdateGuard = (pod: Pod) => Promise<boolean>;

/** The requester workloads name when they consult a budget, as upstream's controllers do. */
const MANAGER_USER = 'kruise-manager';

/**
 * The guard CloneSet, Advanced StatefulSet and SidecarSet consult before an in-place update of a
 * pod (gate PodUnavailableBudgetUpdateGate; none when it is off): the pod's budget takes one unit
 * for it (recorded in unavailablePods, so the pod webhook then lets the update through), or
 * refuses and the workload tries again a second later. An error (the API unreachable) refuses.
 */
export function pubUpdateGuard(manager: Manager, gates: FeatureGates): PubUpdateGuard | undefined {
  if (!gates.enabled('PodUnavailableBudgetUpdateGate')) return undefined;
  const { keeper } = managerBudgets(manager);
  const inPlacePodVerticalScaling = gates.enabled('InPlacePodVerticalScaling');
  return async (pod) => {
    const decision = await decidePodDisruption(pod, 'UPDATE', MANAGER_USER, false, {
      keeper,
      kubeletHash: kubeletContainerHash,
      inPlacePodVerticalScaling,
      now: () => new Date(),
    });
    return decision.allowed;
  };
}

/** How long a workload waits after a budget refused one of its pod updates (upstream: a second). */
export const PUB_REFUSED_RETRY_MS = 1000;

/**
 * The pods, in the given (update) order, up to the first one its budget does not let go now, each
 * allowed one having taken its unit; `refused` tells the workload to look again after
 * {@link PUB_REFUSED_RETRY_MS}. Without a guard, every pod.
 */
export async function podsBudgetsAllow(
  pods: Pod[],
  guard: PubUpdateGuard | undefined,
): Promise<{ pods: Pod[]; refused: boolean }> {
  if (!guard) return { pods, refused: false };
  const allowed: Pod[] = [];
  for (const pod of pods) {
    if (!(await guard(pod))) return { pods: allowed, refused: true };
    allowed.push(pod);
  }
  return { pods: allowed, refused: false };
}
