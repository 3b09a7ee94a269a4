import type { LifecycleHook } from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';

/** Label holding a pod's lifecycle state. */
export const LIFECYCLE_STATE_LABEL = 'lifecycle.apps.kruise.io/state';
/** Annotation with the RFC 3339 time of the last state change. */
export const LIFECYCLE_TIMESTAMP_ANNOTATION = 'lifecycle.apps.kruise.io/timestamp';

/** The lifecycle states of a workload pod. */
export type LifecycleState =
  | 'PreparingNormal'
  | 'Normal'
  | 'PreparingUpdate'
  | 'Updating'
  | 'Updated'
  | 'PreparingDelete';

/** A pod's lifecycle state ('' when it has none). */
export function lifecycleState(pod: Pod): LifecycleState | '' {
  return (pod.metadata?.labels?.[LIFECYCLE_STATE_LABEL] ?? '') as LifecycleState | '';
}

const label = (pod: Pod, key: string) => pod.metadata?.labels?.[key] ?? '';

/** Whether any of the hook's labels (with its value) or finalizers is on the pod (upstream's IsPodHooked). */
export function isPodHooked(hook: LifecycleHook | undefined, pod: Pod): boolean {
  if (!hook) return false;
  for (const [k, v] of Object.entries(hook.labelsHandler ?? {})) if (label(pod, k) === v) return true;
  return (hook.finalizersHandler ?? []).some((f) => pod.metadata?.finalizers?.includes(f));
}

/** Whether all of the hook's labels and finalizers are on the pod, false for no hook (IsPodAllHooked). */
export function isPodAllHooked(hook: LifecycleHook | undefined, pod: Pod): boolean {
  if (!hook) return false;
  for (const [k, v] of Object.entries(hook.labelsHandler ?? {})) if (label(pod, k) !== v) return false;
  return (hook.finalizersHandler ?? []).every((f) => pod.metadata?.finalizers?.includes(f));
}

/** Whether a hook asks for the pod to be held not-ready. */
export const hookMarksNotReady = (hook: LifecycleHook | undefined) => hook?.markPodNotReady === true;
