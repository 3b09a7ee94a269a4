import {
  POD_PUB_NO_PROTECT_ANNOTATION,
  POD_RELATED_PUB_ANNOTATION,
  PUB_PROTECT_TOTAL_REPLICAS_ANNOTATION,
} from '@kruise/api/keys';
import { KruiseResources } from '@kruise/api/kinds';
import { desiredAvailable, hasUnavailableLabel, pubProtects } from '@kruise/api/pub-budget';
import type { PodUnavailableBudget } from '@kruise/api/schema/podunavailablebudget';
import { labelSelectorIsEmpty, labelSelectorMatches } from '@kruise/kube-compat/label-selector';
import type { KubeObject } from '@kruise/runtime/kube/client';
import { isNotFound } from '@kruise/runtime/kube/errors';
import { Resources } from '@kruise/runtime/kube/resources';
import type { AvailabilityLimit, PodState } from './budget.ts';
import { addOutsidePods, expectedPods } from './coverage.ts';
import type { Limits, LimitsClient } from './limits.ts';

/** A PodUnavailableBudget as read from the API server. */
export type Pub = PodUnavailableBudget & KubeObject;

const groupOf = (apiVersion: string | undefined) =>
  (apiVersion ?? '').includes('/') ? apiVersion!.split('/')[0] : '';

/** Whether the budget's targetRef names the pod's controller (group, kind and name, as upstream compares them). */
function targetsController(pub: Pub, pod: KubeObject): boolean {
  const ref = pub.spec?.targetRef;
  const owner = (pod.metadata?.ownerReferences ?? []).find((r: any) => r?.controller);
  return (
    !!ref &&
    !!owner &&
    groupOf(ref.apiVersion) === groupOf(owner.apiVersion) &&
    ref.kind === owner.kind &&
    ref.name === owner.name
  );
}

/**
 * The PodUnavailableBudget covering a pod, as kruise-manager decides it: the one its
 * `kruise.io/related-pub` annotation names (none when that budget is gone); for a pod not yet
 * annotated, the first budget (by name) whose targetRef is the pod's controller or, for a budget
 * without targetRef, whose non-empty selector matches its labels. None for a pod annotated
 * `pub.kruise.io/no-protect: "true"`.
 */
export function pubForPod(pod: KubeObject, pubs: Pub[]): Pub | undefined {
  const annotations = pod.metadata?.annotations ?? {};
  if (annotations[POD_PUB_NO_PROTECT_ANNOTATION] === 'true') return undefined;
  const related = annotations[POD_RELATED_PUB_ANNOTATION];
  if (related) return pubs.find((p) => p.metadata?.name === related);
  const sorted = [...pubs].sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
  return sorted.find((pub) =>
    pub.spec?.targetRef
      ? targetsController(pub, pod)
      : !labelSelectorIsEmpty(pub.spec?.selector) &&
        labelSelectorMatches(pub.spec?.selector, pod.metadata?.labels),
  );
}

/**
 * How many of the budget's pods must stay available: its own `status.desiredAvailable` once it has
 * observed the current spec, else computed from the spec over `pub.kruise.io/protect-total-replicas`
 * when set, or `expected`.
 */
export function pubMinAvailable(pub: Pub, expected: number): number {
  const s = pub.status;
  if (
    s?.observedGeneration !== undefined &&
    s.observedGeneration === pub.metadata?.generation &&
    typeof s.desiredAvailable === 'number'
  )
    return s.desiredAvailable;
  const total = Number.parseInt(pub.metadata?.annotations?.[PUB_PROTECT_TOTAL_REPLICAS_ANNOTATION] ?? '', 10);
  return desiredAvailable(pub, Number.isFinite(total) ? total : expected);
}

/** The budget's pods it counts as unavailable whatever their readiness: those recorded, and those labelled unavailable. */
function countedUnavailable(pub: Pub, pods: KubeObject[]): Set<string> {
  const set = new Set([
    ...Object.keys(pub.status?.unavailablePods ?? {}),
    ...Object.keys(pub.status?.disruptedPods ?? {}),
  ]);
  for (const p of pods) if (hasUnavailableLabel(p.metadata?.labels)) set.add(p.metadata!.name as string);
  return set;
}

/** The namespace's budgets; none when the PodUnavailableBudget CRD is not installed. */
async function listPubs(client: LimitsClient, namespace: string): Promise<Pub[]> {
  try {
    return (await client.listAll<Pub>(KruiseResources.PodUnavailableBudget, { namespace })).items;
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
}

/**
 * The PodUnavailableBudgets of the namespace that protect UPDATE and cover at least one of the
 * workload's pods (see {@link pubForPod}), as limits over every active pod each covers;
 * `budgetOf` maps each covered pod of the workload to its budget.
 */
export async function pubLimits(
  client: LimitsClient,
  namespace: string,
  workloadPods: KubeObject[],
  replicas: number,
): Promise<Limits> {
  const budgetOf = new Map<string, string>();
  const pubs = await listPubs(client, namespace);
  const protecting = (pod: KubeObject) => {
    const pub = pubForPod(pod, pubs);
    return pub && pubProtects(pub, 'UPDATE', false) ? pub : undefined;
  };
  for (const pod of workloadPods) {
    const pub = pubs.length ? protecting(pod) : undefined;
    if (pub) budgetOf.set(pod.metadata!.name as string, pub.metadata!.name as string);
  }
  if (!budgetOf.size) return { limits: [], others: [], budgetOf };
  const ours = new Set(workloadPods.map((p) => p.metadata!.name as string));
  const limiting = new Set(budgetOf.values());
  const theirs = new Map<string, KubeObject[]>();
  for (const p of (await client.listAll(Resources.Pod, { namespace })).items) {
    if (ours.has(p.metadata!.name) || p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed')
      continue;
    const name = protecting(p)?.metadata?.name;
    if (name && limiting.has(name)) theirs.set(name, [...(theirs.get(name) ?? []), p]);
  }
  const others = new Map<string, PodState>();
  const limits: AvailabilityLimit[] = [];
  for (const name of limiting) {
    const pub = pubs.find((p) => p.metadata?.name === name)!;
    const coveredOurs = workloadPods.filter((p) => budgetOf.get(p.metadata!.name) === name);
    const covers = new Set<string>(coveredOurs.map((p) => p.metadata!.name as string));
    const outsidePods = theirs.get(name) ?? [];
    const outside = addOutsidePods(outsidePods, ours, covers, others);
    limits.push({
      source: `podunavailablebudget/${name}`,
      covers,
      minAvailable: pubMinAvailable(pub, expectedPods(coveredOurs.length, ours.size, replicas, outside)),
      unavailable: countedUnavailable(pub, [...coveredOurs, ...outsidePods]),
    });
  }
  return { limits, others: [...others.values()], budgetOf };
}
