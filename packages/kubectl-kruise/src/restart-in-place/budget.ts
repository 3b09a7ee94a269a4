import { intPercentValueOrZero, scaledValue } from '@kruise/kube-compat/intstr';

/** A pod as the planner sees it. */
export interface PodState {
  name: string;
  /** Ready (and available past the workload's minReadySeconds). */
  available: boolean;
}

/**
 * A limit on how many pods may be unavailable at once: the workload's maxUnavailable, a
 * PodDisruptionBudget or a PodUnavailableBudget. `minAvailable` of the pods in `covers` must stay
 * available.
 */
export interface AvailabilityLimit {
  /**
   * Names the limit in messages: `maxUnavailable 1 of cloneset/web`, `poddisruptionbudget/web-pdb`,
   * `podunavailablebudget/web-pub`.
   */
  source: string;
  /** Pods the limit counts (every pod it selects, of this workload or not). */
  covers: Set<string>;
  minAvailable: number;
  /**
   * Pods this limit counts as unavailable whatever their readiness (a PodUnavailableBudget's
   * recorded pods, and pods labelled `unavailable-pod.kruise.io/*`).
   */
  unavailable?: Set<string>;
}

/**
 * The CloneSet's maxUnavailable as its controller resolves it: default 20%, a percentage of
 * replicas rounded up when the effective maxSurge is 0 (paused forces 0) and down otherwise.
 */
export function cloneSetMaxUnavailable(spec: {
  replicas?: number;
  updateStrategy?: { maxUnavailable?: number | string; maxSurge?: number | string; paused?: boolean };
}): number {
  const replicas = spec.replicas ?? 1;
  const s = spec.updateStrategy ?? {};
  const maxSurge =
    s.maxSurge === undefined || s.maxSurge === null || s.paused
      ? 0
      : intPercentValueOrZero(s.maxSurge, replicas, true);
  return intPercentValueOrZero(s.maxUnavailable ?? '20%', replicas, maxSurge === 0);
}

/**
 * The Advanced StatefulSet's maxUnavailable as its rolling update resolves it: default 1, a
 * percentage of replicas rounded down, at least 1 (its webhook allows more than 1 only under the
 * Parallel pod management policy).
 */
export function statefulSetMaxUnavailable(spec: {
  replicas?: number;
  updateStrategy?: { rollingUpdate?: { maxUnavailable?: number | string } };
}): number {
  const value = spec.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1;
  return Math.max(1, intPercentValueOrZero(value, spec.replicas ?? 1, false));
}

/** A PodDisruptionBudget as far as the planner reads it. */
export interface BudgetObject {
  metadata?: { name?: string; generation?: number };
  spec?: { minAvailable?: number | string; maxUnavailable?: number | string };
  status?: { desiredHealthy?: number; observedGeneration?: number };
}

/**
 * How many of a budget's pods must stay healthy, as the disruption controller computes it:
 * `minAvailable` as a count, or a percentage of `expected` rounded up; `expected −
 * maxUnavailable` (a percentage rounded up); nothing when neither is set. The budget's own
 * `status.desiredHealthy`, once it has observed the current spec, is taken when it is higher (it
 * counts the scale of every controller of the selected pods).
 */
export function budgetMinAvailable(pdb: BudgetObject, expected: number): number {
  const spec = pdb.spec ?? {};
  let desired = 0;
  if (spec.minAvailable !== undefined && spec.minAvailable !== null)
    desired =
      typeof spec.minAvailable === 'number'
        ? spec.minAvailable
        : scaledValue(spec.minAvailable, expected, true);
  else if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null)
    desired = Math.max(expected - scaledValue(spec.maxUnavailable, expected, true), 0);
  const observed =
    pdb.status?.observedGeneration !== undefined &&
    pdb.status.observedGeneration === pdb.metadata?.generation;
  if (observed && typeof pdb.status?.desiredHealthy === 'number')
    desired = Math.max(desired, pdb.status.desiredHealthy);
  return desired;
}
