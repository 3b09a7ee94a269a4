import { POD_RELATED_PUB_ANNOTATION, type PodUnavailableBudget } from '@kruise/api';
import { jsonDeepEqual } from '@kruise/kube-compat';
import type { KubeObject, Request } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { KubeletContainerHash } from '../../workload/inplaceupdate/completion.ts';
import { isPubPodAvailable } from '../../workload/pub/pod-availability.ts';
import { budgetSelects, sameWorkload, type WorkloadIdentity } from '../../workload/pub/relation.ts';

/** Delay before a budget whose pod started terminating is looked at (upstream: 5 s). */
export const TERMINATING_DELAY_MS = 5000;

/** What the handlers read. */
export interface BudgetEventDeps {
  /** The cached budgets of a namespace. */
  budgets(namespace: string): PodUnavailableBudget[];
  /** The workload a pod's controller reference resolves to from the caches (a ReplicaSet's Deployment). */
  workloadOf(pod: Pod): WorkloadIdentity | undefined;
  kubeletHash: KubeletContainerHash;
}

const requestOf = (pub: PodUnavailableBudget): Request => ({
  namespace: pub.metadata?.namespace ?? '',
  name: pub.metadata?.name ?? '',
});

/**
 * The budgets a pod belongs to: the one its `kruise.io/related-pub` names, else (beyond upstream,
 * #1857: a pod the pod webhook did not mark, created after its budget) those whose targetRef is
 * its workload or whose selector picks it — so a budget created before its pods sees them come.
 */
export function budgetsOfPod(pod: Pod, deps: BudgetEventDeps): Request[] {
  const namespace = pod.metadata?.namespace ?? '';
  const named = pod.metadata?.annotations?.[POD_RELATED_PUB_ANNOTATION];
  if (named) return [{ namespace, name: named }];
  const budgets = deps.budgets(namespace);
  if (!budgets.length) return [];
  const workload = deps.workloadOf(pod);
  return budgets
    .filter((pub) =>
      pub.spec?.targetRef
        ? workload !== undefined && sameWorkload(pub.spec.targetRef, workload)
        : budgetSelects(pub, pod.metadata?.labels),
    )
    .map(requestOf);
}

/** What a pod update asks of its budgets: to be looked at now, after a delay, or not at all. */
export function podUpdateRequests(
  old: Pod,
  cur: Pod,
  deps: BudgetEventDeps,
): { now: Request[]; later: Request[] } {
  const none = { now: [], later: [] };
  if (old.metadata?.resourceVersion === cur.metadata?.resourceVersion) return none;
  if (!old.metadata?.deletionTimestamp && cur.metadata?.deletionTimestamp)
    return { now: [], later: budgetsOfPod(cur, deps) };
  if (old.metadata?.deletionTimestamp) return none;
  const unmarked = !cur.metadata?.annotations?.[POD_RELATED_PUB_ANNOTATION];
  if (unmarked && !jsonDeepEqual(old.metadata?.labels ?? {}, cur.metadata?.labels ?? {}))
    return { now: budgetsOfPod(cur, deps), later: [] };
  if (isPubPodAvailable(old, deps.kubeletHash) !== isPubPodAvailable(cur, deps.kubeletHash))
    return { now: budgetsOfPod(cur, deps), later: [] };
  return none;
}

/** A workload as the handlers read it: its identity, template labels and replicas. */
export interface WorkloadSnapshot extends WorkloadIdentity {
  namespace: string;
  templateLabels: Record<string, string> | undefined;
  replicas: number | undefined;
}

/**
 * The budgets a workload's change concerns (upstream's SetEnqueueRequestForPUB): the first one
 * whose targetRef names it or whose selector picks its pod template's labels.
 */
export function budgetsOfWorkload(w: WorkloadSnapshot, deps: Pick<BudgetEventDeps, 'budgets'>): Request[] {
  for (const pub of deps.budgets(w.namespace)) {
    const ref = pub.spec?.targetRef;
    if (ref ? sameWorkload(ref, w) : budgetSelects(pub, w.templateLabels)) return [requestOf(pub)];
  }
  return [];
}

/** A cached workload object as a snapshot (its kind and apiVersion given by its informer). */
export function snapshotOf(obj: KubeObject, apiVersion: string, kind: string): WorkloadSnapshot {
  return {
    apiVersion,
    kind,
    name: obj.metadata?.name ?? '',
    namespace: obj.metadata?.namespace ?? '',
    templateLabels: obj.spec?.template?.metadata?.labels,
    replicas: obj.spec?.replicas,
  };
}
