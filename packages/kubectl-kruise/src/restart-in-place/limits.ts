import { labelSelectorMatches, labelSelectorString } from '@kruise/kube-compat/label-selector';
import type { ResourceRef } from '@kruise/kube-compat/resource-ref';
import type { KubeClient, KubeObject } from '@kruise/runtime/kube/client';
import { Resources } from '@kruise/runtime/kube/resources';
import { type AvailabilityLimit, budgetMinAvailable, type PodState } from './budget.ts';
import { addOutsidePods, expectedPods } from './coverage.ts';
import { pubLimits } from './pub-limits.ts';

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
  /** Pods a budget counts that are not the workload's, with their availability (Ready). */
  others: PodState[];
  /**
   * The workload's pods whose restart takes a disruption out of a PodUnavailableBudget, with the
   * budget's name (only budgets that protect UPDATE).
   */
  budgetOf: Map<string, string>;
}

/** The calls reading the limits makes. */
export type LimitsClient = Pick<KubeClient, 'listAll'>;

/**
 * Every budget's limit on the workload's restart: the PodDisruptionBudgets (see
 * {@link budgetLimits}) and the PodUnavailableBudgets (see `pubLimits`) covering its pods.
 */
export async function availabilityLimits(
  client: LimitsClient,
  namespace: string,
  workloadPods: KubeObject[],
  replicas: number,
): Promise<Limits> {
  const pdb = await budgetLimits(client, namespace, workloadPods, replicas);
  const pub = await pubLimits(client, namespace, workloadPods, replicas);
  const others = new Map([...pdb.others, ...pub.others].map((s) => [s.name, s]));
  return { limits: [...pdb.limits, ...pub.limits], others: [...others.values()], budgetOf: pub.budgetOf };
}

/**
 * The PodDisruptionBudgets of the namespace that select at least one of the workload's pods, as
 * limits over every pod each selects (an empty selector selects every pod of the namespace, a
 * missing one none). The expected count is `expectedPods`.
 */
export async function budgetLimits(
  client: LimitsClient,
  namespace: string,
  workloadPods: KubeObject[],
  replicas: number,
): Promise<Omit<Limits, 'budgetOf'>> {
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
    const outside = addOutsidePods(selected.items, ours, covers, others);
    limits.push({
      source: `poddisruptionbudget/${pdb.metadata?.name}`,
      covers,
      minAvailable: budgetMinAvailable(pdb, expectedPods(coveredOurs.length, ours.size, replicas, outside)),
    });
  }
  return { limits, others: [...others.values()] };
}
