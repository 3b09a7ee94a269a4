import type { KubeObject } from '@kruise/runtime/kube/client';
import type { PodState } from './budget.ts';

/** What the budgets of a restart (PodDisruptionBudgets, PodUnavailableBudgets) count alike. */

/** Whether a pod is Ready. */
export const isReady = (pod: KubeObject): boolean =>
  (pod.status?.conditions ?? []).some((c: any) => c?.type === 'Ready' && c.status === 'True');

/**
 * The pods a budget counts beyond the workload's: adds each (not deleting) to `covers` and to
 * `others` with its readiness, and returns how many there were.
 */
export function addOutsidePods(
  pods: KubeObject[],
  ours: Set<string>,
  covers: Set<string>,
  others: Map<string, PodState>,
): number {
  let outside = 0;
  for (const p of pods) {
    const name = p.metadata!.name as string;
    if (ours.has(name) || p.metadata?.deletionTimestamp) continue;
    covers.add(name);
    others.set(name, { name, available: isReady(p) });
    outside++;
  }
  return outside;
}

/**
 * The pod count a budget's minimum is computed over: the workload's replicas when the budget
 * covers all its pods (else the pods it covers), plus the budget's pods outside the workload.
 */
export function expectedPods(coveredOurs: number, ours: number, replicas: number, outside: number): number {
  return (coveredOurs === ours ? replicas : coveredOurs) + outside;
}
