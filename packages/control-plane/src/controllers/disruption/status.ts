import { nowRFC3339 } from '../../api/context.ts';
import type { KubeObject } from '../../registry/types.ts';
import type { BudgetCounts } from './budget.ts';

/**
 * A budget's status from its counts, with the DisruptionAllowed condition
 * (pdbhelper.UpdateDisruptionAllowedCondition): True/SufficientPods while disruptions are
 * allowed, False/InsufficientPods when not, False/SyncFailed with the error when counting failed.
 */
export function budgetStatus(
  pdb: KubeObject,
  counts: BudgetCounts | undefined,
  failure?: string,
): KubeObject {
  const old = pdb.status ?? {};
  const generation = pdb.metadata?.generation ?? 0;
  const status: KubeObject = counts
    ? {
        observedGeneration: generation,
        ...(Object.keys(counts.disruptedPods).length ? { disruptedPods: counts.disruptedPods } : {}),
        disruptionsAllowed: counts.disruptionsAllowed,
        currentHealthy: counts.currentHealthy,
        desiredHealthy: counts.desiredHealthy,
        expectedPods: counts.expectedPods,
      }
    : { ...old, observedGeneration: generation, disruptionsAllowed: 0 };
  const [state, reason, message] = failure
    ? ['False', 'SyncFailed', failure]
    : status.disruptionsAllowed > 0
      ? ['True', 'SufficientPods', '']
      : ['False', 'InsufficientPods', ''];
  status.conditions = withDisruptionAllowed(old.conditions, state, reason, message, generation);
  return status;
}

/** The conditions with DisruptionAllowed set (its transition time kept while the status stays). */
export function withDisruptionAllowed(
  conditions: any[] | undefined,
  state: string,
  reason: string,
  message: string,
  generation: number,
): any[] {
  const others = (conditions ?? []).filter((c) => c?.type !== 'DisruptionAllowed');
  const old = (conditions ?? []).find((c) => c?.type === 'DisruptionAllowed');
  return [
    ...others,
    {
      type: 'DisruptionAllowed',
      status: state,
      observedGeneration: generation,
      lastTransitionTime: old?.status === state ? old.lastTransitionTime : nowRFC3339(),
      reason,
      message,
    },
  ];
}
