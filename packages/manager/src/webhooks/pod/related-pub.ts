import { POD_RELATED_PUB_ANNOTATION, type PodUnavailableBudget } from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { budgetCovering, type WorkloadIdentity } from '../../workload/pub/relation.ts';

/** What the related-pub step reads. */
export interface RelatedPubLookups {
  /** The budgets of a namespace (from the manager's cache). */
  budgets(namespace: string): PodUnavailableBudget[];
  /** The workload that controls a pod, as the controller finder resolves its controller reference. */
  workloadOf(pod: Pod): Promise<WorkloadIdentity | undefined>;
}

/**
 * The pod pipeline's PodUnavailableBudget step (upstream's pubMutatingPod): a new pod covered by a
 * budget of its namespace — its workload is the budget's targetRef, or the budget's selector picks
 * its labels — gets `kruise.io/related-pub: <budget>`, which the pod webhooks then go by. When the
 * workload cannot be read, only selectors are matched, as upstream.
 */
export async function stampRelatedPub(pod: Pod, lookups: RelatedPubLookups): Promise<boolean> {
  const budgets = lookups.budgets(pod.metadata?.namespace ?? '');
  if (!budgets.length) return false;
  let workload: WorkloadIdentity | undefined;
  try {
    workload = await lookups.workloadOf(pod);
  } catch {
    workload = undefined; // as upstream: the selectors still apply
  }
  const pub = budgetCovering(budgets, pod.metadata?.labels, workload);
  if (!pub?.metadata?.name) return false;
  pod.metadata ??= {};
  pod.metadata.annotations = { ...pod.metadata.annotations, [POD_RELATED_PUB_ANNOTATION]: pub.metadata.name };
  return true;
}
