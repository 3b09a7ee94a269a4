import type { Pod } from 'kubernetes-types/core/v1.js';
import { lifecycleState } from '../../workload/lifecycle/state.ts';
import { isRunningAndReady, podCondition } from '../../workload/pod-state.ts';

/** A pod the API server has stored (its phase is set). */
export const isCreated = (pod: Pod) => (pod.status?.phase ?? '') !== '';
export const isPending = (pod: Pod) => pod.status?.phase === 'Pending';
export const isFailed = (pod: Pod) => pod.status?.phase === 'Failed';
export const isSucceeded = (pod: Pod) => pod.status?.phase === 'Succeeded';
export const isTerminating = (pod: Pod) => pod.metadata?.deletionTimestamp !== undefined;

/** Running with a Ready condition that is True. */
export { isRunningAndReady };

/** Whether the pod's lifecycle state is empty or Normal (a pod in any other state is not available). */
const inNormalState = (pod: Pod) => {
  const state = lifecycleState(pod);
  return state === '' || state === 'Normal';
};

/** Running and ready, not being deleted, in the Normal lifecycle state (upstream's isHealthy). */
export const isHealthy = (pod: Pod) => inNormalState(pod) && isRunningAndReady(pod) && !isTerminating(pod);

/**
 * Whether the pod is running and available (Ready for `minReadySeconds`, in the Normal lifecycle
 * state), and if it is ready but not yet for long enough, how long until it will be (upstream's
 * isRunningAndAvailable).
 */
export function runningAndAvailable(
  pod: Pod,
  minReadySeconds: number,
  now: number,
): { available: boolean; waitMs: number } {
  if (!inNormalState(pod) || !isRunningAndReady(pod)) return { available: false, waitMs: 0 };
  if (minReadySeconds <= 0) return { available: true, waitMs: 0 };
  const since = Date.parse(podCondition(pod, 'Ready')?.lastTransitionTime ?? '');
  if (Number.isNaN(since)) return { available: false, waitMs: minReadySeconds * 1000 };
  const waitMs = since + minReadySeconds * 1000 - now;
  return waitMs > 0 ? { available: false, waitMs } : { available: true, waitMs: 0 };
}
