import type { Pod } from 'kubernetes-types/core/v1.js';
import { inPlaceUpdateCondition } from '../../workload/inplaceupdate/readiness.ts';
import { lifecycleState } from '../../workload/lifecycle/state.ts';
import { isRunningAndAvailable } from '../../workload/pod-state.ts';

/**
 * Whether a CloneSet pod counts as available: lifecycle state empty or Normal, Running, Ready for
 * at least `minReadySeconds`, and its InPlaceUpdateReady condition (if any) True.
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  const state = lifecycleState(pod);
  if (state !== '' && state !== 'Normal') return false;
  return isPodUpdateReady(pod, minReadySeconds, now);
}

/** Running and available, with InPlaceUpdateReady not False (CloneSet's IsPodUpdateReady). */
export function isPodUpdateReady(pod: Pod, minReadySeconds: number, now: number): boolean {
  if (!isRunningAndAvailable(pod, minReadySeconds, now)) return false;
  const c = inPlaceUpdateCondition(pod);
  return !c || c.status === 'True';
}
