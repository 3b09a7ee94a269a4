import { type PodUnavailableBudget, PUB_PROTECT_TOTAL_REPLICAS_ANNOTATION } from '@kruise/api';
import { labelSelectorIsEmpty, labelSelectorMatches } from '@kruise/kube-compat';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ControllerFinder } from '../../workload/controllerfinder/index.ts';
import { isPodActive } from '../../workload/pod-state.ts';

/** A budget's pods and how many it expects. */
export interface BudgetPods {
  pods: Pod[];
  /** The replicas the budget protects: its workloads' (or the protect-total-replicas annotation). */
  expected: number;
  /** Whether the pods' workloads want none (scaled to 0, deleted, or being deleted). */
  workloadsWantNone: boolean;
}

/** The protect-total-replicas annotation as Go's ParseInt reads it (0 when unreadable), or undefined. */
function protectedTotal(pub: PodUnavailableBudget): number | undefined {
  const value = pub.metadata?.annotations?.[PUB_PROTECT_TOTAL_REPLICAS_ANNOTATION];
  if (!value) return undefined;
  return /^[+-]?\d+$/.test(value) && Math.abs(Number(value)) < 2 ** 31 ? Number(value) : 0;
}

/**
 * The pods a budget covers and its expected count (upstream's GetPodsForPub): a targetRef's
 * workload's active pods and replicas, through the controller finder; a selector's active pods of
 * the namespace and the summed replicas of their workloads. The annotation
 * `pub.kruise.io/protect-total-replicas` replaces the expected count.
 */
export async function budgetPods(
  pub: PodUnavailableBudget,
  finder: Pick<ControllerFinder, 'podsForRef' | 'expectedScaleForPods'>,
  podsInNamespace: (namespace: string) => Pod[],
): Promise<BudgetPods> {
  const namespace = pub.metadata?.namespace ?? '';
  const total = protectedTotal(pub);
  const ref = pub.spec?.targetRef;
  if (ref) {
    const found = await finder.podsForRef(
      { apiVersion: ref.apiVersion ?? '', kind: ref.kind ?? '', name: ref.name ?? '' },
      namespace,
      true,
    );
    return { pods: found.pods, expected: total ?? found.replicas, workloadsWantNone: found.replicas <= 0 };
  }
  const selector = pub.spec?.selector;
  if (!selector || labelSelectorIsEmpty(selector)) return { pods: [], expected: 0, workloadsWantNone: false };
  const pods = podsInNamespace(namespace).filter(
    (p) => isPodActive(p) && labelSelectorMatches(selector, p.metadata?.labels),
  );
  if (total !== undefined) return { pods, expected: total, workloadsWantNone: false };
  const expected = await finder.expectedScaleForPods(pods);
  const controlled = pods.some((p) => (p.metadata?.ownerReferences ?? []).some((r) => r.controller));
  return { pods, expected, workloadsWantNone: expected === 0 && controlled };
}
