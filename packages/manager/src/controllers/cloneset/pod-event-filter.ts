import type { CloneSet } from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { containersNotUpdated } from '../../workload/inplaceupdate/completion.ts';
import type { InPlaceUpdateOptions } from '../../workload/inplaceupdate/control.ts';
import { hasInPlaceUpdateGate, inPlaceUpdateCondition } from '../../workload/inplaceupdate/readiness.ts';
import { readState } from '../../workload/inplaceupdate/state.ts';
import { LIFECYCLE_STATE_LABEL } from '../../workload/lifecycle/state.ts';
import { isPodActive, isPodReady } from '../../workload/pod-state.ts';

/** Feature gate: drop pod update events that cannot change what a CloneSet reconcile does. */
export const EVENT_HANDLER_OPTIMIZATION_GATE = 'CloneSetEventHandlerOptimization';

const hasFinalizer = (pod: Pod, f: string) => pod.metadata?.finalizers?.includes(f) === true;

/** Whether a finalizer of one of the CloneSet's lifecycle hooks came or went (upstream's lifecycleFinalizerChanged). */
function lifecycleFinalizerChanged(cs: CloneSet, oldPod: Pod, curPod: Pod): boolean {
  const lifecycle = cs.spec?.lifecycle;
  const hooks = [lifecycle?.preDelete, lifecycle?.inPlaceUpdate, lifecycle?.preNormal];
  return hooks.some((h) =>
    (h?.finalizersHandler ?? []).some((f) => hasFinalizer(oldPod, f) !== hasFinalizer(curPod, f)),
  );
}

/** Whether the pod is (or may be) in an in-place update: any lifecycle state but Normal, once it has labels. */
function mayBeUpdating(pod: Pod): boolean {
  const labels = pod.metadata?.labels ?? {};
  return Object.keys(labels).length > 0 && labels[LIFECYCLE_STATE_LABEL] !== 'Normal';
}

/** Whether the pod's in-place update state says its containers are updated (false without a state). */
function containersUpdated(pod: Pod, opts: InPlaceUpdateOptions): boolean {
  try {
    const state = readState(pod);
    return state !== undefined && containersNotUpdated(pod, state, opts) === undefined;
  } catch {
    return false;
  }
}

/**
 * Whether an update of an owned pod (same controller, same labels) can be left out of the
 * CloneSet's queue (upstream v1.9's IgnorePodUpdateEvent, used under the
 * CloneSetEventHandlerOptimization gate): it is kept when the pod's generation, a lifecycle hook
 * finalizer, its readiness or its activity changed, or when an in-place update has finished its
 * containers while InPlaceUpdateReady is not yet True (the reconcile sets it), or when vertical
 * scaling is on (a resize may need the reconcile).
 */
export function ignorePodUpdateEvent(
  cs: CloneSet,
  oldPod: Pod,
  curPod: Pod,
  opts: InPlaceUpdateOptions,
): boolean {
  if (oldPod.metadata?.generation !== curPod.metadata?.generation) return false;
  if (lifecycleFinalizerChanged(cs, oldPod, curPod)) return false;
  if (isPodReady(oldPod) !== isPodReady(curPod)) return false;
  if (isPodActive(oldPod) !== isPodActive(curPod)) return false;
  if ((hasInPlaceUpdateGate(curPod) || mayBeUpdating(curPod)) && containersUpdated(curPod, opts)) {
    if (inPlaceUpdateCondition(curPod)?.status !== 'True') return false;
    if (opts.gates.verticalScaling) return false;
  }
  return true;
}
