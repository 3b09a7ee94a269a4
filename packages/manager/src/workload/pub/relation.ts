import type { PodUnavailableBudget, TargetReference } from '@kruise/api';
import { labelSelectorIsEmpty, labelSelectorMatches } from '@kruise/kube-compat';

/** A workload as a budget's targetRef names it. */
export interface WorkloadIdentity {
  apiVersion: string;
  kind: string;
  name: string;
}

/** The API group of an apiVersion (`apps/v1` → `apps`, `v1` → ``); undefined when malformed. */
export function groupOf(apiVersion: string | undefined): string | undefined {
  const v = apiVersion ?? '';
  if (v === '' || v === '/') return '';
  const parts = v.split('/');
  if (parts.length === 1) return '';
  if (parts.length === 2) return parts[0];
  return undefined;
}

/** Whether two references name the same workload: group, kind and name (upstream's IsReferenceEqual). */
export function sameWorkload(
  a: TargetReference | WorkloadIdentity,
  b: TargetReference | WorkloadIdentity,
): boolean {
  const ga = groupOf(a.apiVersion);
  const gb = groupOf(b.apiVersion);
  return ga !== undefined && gb !== undefined && ga === gb && a.kind === b.kind && a.name === b.name;
}

/** Whether a budget's selector (not empty) selects these labels. */
export function budgetSelects(
  pub: PodUnavailableBudget,
  labels: Record<string, string> | undefined,
): boolean {
  const selector = pub.spec?.selector;
  if (!selector || labelSelectorIsEmpty(selector)) return false;
  return labelSelectorMatches(selector, labels);
}

/**
 * The first budget of the namespace's `budgets` that covers a pod (upstream's GetPubForPod):
 * one whose targetRef is the pod's workload (`workload`, its controller as the controller finder
 * resolves it: a ReplicaSet's Deployment), or one whose selector matches the pod's labels.
 */
export function budgetCovering(
  budgets: PodUnavailableBudget[],
  labels: Record<string, string> | undefined,
  workload: WorkloadIdentity | undefined,
): PodUnavailableBudget | undefined {
  for (const pub of budgets) {
    const ref = pub.spec?.targetRef;
    if (ref && workload) {
      if (sameWorkload(ref, workload)) return pub;
    } else if (budgetSelects(pub, labels)) return pub;
  }
  return undefined;
}
