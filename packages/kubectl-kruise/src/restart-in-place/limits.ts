import { labelSelectorMatches, labelSelectorString } from '@kruise/kube-compat/label-selector';
import type { ResourceRef } from '@kruise/kube-compat/resource-ref';
import type { KubeClient, KubeObject } from '@kruise/runtime/kube/client';
import { Resources } from '@kruise/runtime/kube/resources';
import { type AvailabilityLimit, budgetMinAvailable, type PodState } from './budget.ts';

/** policy/v1 PodDisruptionBudget. */
export const PodDisruptionBudgets: ResourceRef = {
  group: 'policy',
  version: 'v1',
  plural: 'poddisruptionbudgets',
  kind: 'PodDisruptionBudget',
  namespaced: true,
};

/** What the limits of one moment are made of. */
export interface Limits {
  limits: AvailabilityLimit[];
  /** Pods selected by a budget that are not the workload's, with their availability (Ready). */
  others: PodState[];
}

const isReady = (pod: KubeObject) =>
  (pod.status?.conditions ?? []).some((c: any) => c?.type === 'Ready' && c.status === 'True');

/**
 * The PodDisruptionBudgets of the namespace that select at least one of the workload's pods, as
 * limits over every pod each selects (an empty selector selects every pod of the namespace, a
 * missing one none). The expected count is the workload's replicas (or its selected pods, when the
 * budget selects only some) plus the budget's other pods.
 */
export async function budgetLimits(
  client: Pick<KubeClient, 'listAll'>,
  namespace: string,
  workloadPods: KubeObject[],
  replicas: number,
): Promise<Limits> {
  const pdbs = (await client.listAll(PodDisruptionBudgets, { namespace })).items;
  const ours = new Set(workloadPods.map((p) => p.metadata!.name as string));
  const limits: AvailabilityLimit[] = [];
  const others = new Map<string, PodState>();
  for (const pdb of pdbs) {
    const selector = pdb.spec?.selector;
    if (!selector) continue;
    const coveredOurs = workloadPods.filter((p) => labelSelectorMatches(selector, p.metadata?.labels));
    if (!coveredOurs.length) continue;
    const covers = new Set<string>(coveredOurs.map((p) => p.metadata!.name as string));
    const selected = await client.listAll(Resources.Pod, {
      namespace,
      labelSelector: labelSelectorString(selector),
    });
    let outside = 0;
    for (const p of selected.items) {
      const name = p.metadata!.name as string;
      if (ours.has(name) || p.metadata?.deletionTimestamp) continue;
      covers.add(name);
      others.set(name, { name, available: isReady(p) });
      outside++;
    }
    const expected = (coveredOurs.length === ours.size ? replicas : coveredOurs.length) + outside;
    limits.push({
      source: `poddisruptionbudget/${pdb.metadata?.name}`,
      covers,
      minAvailable: budgetMinAvailable(pdb, expected),
    });
  }
  return { limits, others: [...others.values()] };
}
