import { intPercentValue } from '@kruise/kube-compat/intstr';
import { PUB_PROTECT_OPERATIONS_ANNOTATION } from './keys.ts';
import type { PodUnavailableBudget } from './schema/podunavailablebudget.ts';

/**
 * The arithmetic of a PodUnavailableBudget that every program touching one must do alike: which
 * operations it protects, how many pods it wants available, and how one disruption is recorded
 * against it. kruise-manager's webhooks and controllers and kubectl-kruise all use these.
 */

/** A disruption a budget may protect against. */
export type PubOperation = 'DELETE' | 'EVICT' | 'UPDATE' | 'RESIZE';

/** The operations `kruise.io/pub-protect-operations` may list. */
export const PUB_OPERATIONS: readonly PubOperation[] = ['UPDATE', 'DELETE', 'EVICT', 'RESIZE'];

/** More recorded pods than this and a budget refuses every disruption (upstream's MaxUnavailablePodSize). */
export const MAX_RECORDED_PODS = 2000;

/** Pod labels with this prefix make a pod count as unavailable, whatever its readiness. */
export const UNAVAILABLE_POD_LABEL_PREFIX = 'unavailable-pod.kruise.io/';

/** Whether the pod carries an `unavailable-pod.kruise.io/*` label. */
export function hasUnavailableLabel(labels: Record<string, string> | undefined | null): boolean {
  return Object.keys(labels ?? {}).some((k) => k.startsWith(UNAVAILABLE_POD_LABEL_PREFIX));
}

/**
 * Whether the budget protects pods against `operation`: the annotation's list, or DELETE, UPDATE
 * and EVICT when it is absent or empty; RESIZE counts as UPDATE unless `inPlacePodVerticalScaling`
 * (the gate) lets resizes be told apart.
 */
export function pubProtects(
  pub: PodUnavailableBudget,
  operation: PubOperation,
  inPlacePodVerticalScaling: boolean,
): boolean {
  const value = pub.metadata?.annotations?.[PUB_PROTECT_OPERATIONS_ANNOTATION] ?? '';
  const ops = new Set<string>(value === '' ? ['DELETE', 'UPDATE', 'EVICT'] : value.split(','));
  if (!inPlacePodVerticalScaling && ops.has('UPDATE')) ops.add('RESIZE');
  return ops.has(operation);
}

/** Whether the pod is already recorded as disrupted or unavailable by the budget. */
export function isRecordedInPub(pub: PodUnavailableBudget, podName: string): boolean {
  const s = pub.status;
  return (
    (s?.unavailablePods !== undefined && Object.hasOwn(s.unavailablePods ?? {}, podName)) ||
    (s?.disruptedPods !== undefined && Object.hasOwn(s.disruptedPods ?? {}, podName))
  );
}

/**
 * How many pods the budget wants available among `expected`: `expected − maxUnavailable` (a
 * percentage rounded up, never below 0), or `minAvailable` (a percentage rounded up).
 * @throws Error with apimachinery's words for a malformed percentage.
 */
export function desiredAvailable(pub: PodUnavailableBudget, expected: number): number {
  const spec = pub.spec ?? {};
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null)
    return Math.max(0, expected - intPercentValue(spec.maxUnavailable, expected, true));
  if (spec.minAvailable !== undefined && spec.minAvailable !== null)
    return typeof spec.minAvailable === 'number'
      ? spec.minAvailable
      : intPercentValue(spec.minAvailable, expected, true);
  return 0;
}

/** Why the budget cannot take one more disruption (the Forbidden error's cause), or undefined when it can. */
export function budgetRefusal(pub: PodUnavailableBudget): string | undefined {
  const s = pub.status;
  if ((s?.unavailableAllowed ?? 0) <= 0) return 'pub unavailable allowed is negative';
  if (
    Object.keys(s?.disruptedPods ?? {}).length + Object.keys(s?.unavailablePods ?? {}).length >
    MAX_RECORDED_PODS
  )
    return 'DisruptedPods and UnavailablePods map too big - too many unavailable not confirmed by PUB controller';
  return undefined;
}

/** Forbidden's text for a refusal, as apimachinery's NewForbidden words it for the budget. */
export function pubForbiddenMessage(pubName: string, cause: string): string {
  return `podunavailablebudget.policy.kruise.io ${JSON.stringify(pubName)} is forbidden: ${cause}`;
}

/**
 * Takes one disruption out of the budget (upstream's checkAndDecrement), changing `pub.status` in
 * place: unavailableAllowed − 1 and the pod recorded at `now` (to the millisecond) in
 * unavailablePods (UPDATE) or disruptedPods (any other operation).
 * @returns the refusal's cause, with the budget untouched, when it cannot take one.
 */
export function takeDisruption(
  pub: PodUnavailableBudget,
  podName: string,
  operation: PubOperation,
  now: Date,
): string | undefined {
  const refusal = budgetRefusal(pub);
  if (refusal) return refusal;
  const status = pub.status!;
  status.unavailableAllowed -= 1;
  // milliseconds (RFC 3339 allows them; Go's metav1.Time reads them): the budget's controller
  // compares them with when it saw the pod go down
  const time = now.toISOString();
  if (operation === 'UPDATE') status.unavailablePods = { ...status.unavailablePods, [podName]: time };
  else status.disruptedPods = { ...status.disruptedPods, [podName]: time };
  status.disruptedPods ??= {};
  status.unavailablePods ??= {};
  return undefined;
}
