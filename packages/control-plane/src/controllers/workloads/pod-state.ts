import type { KubeObject } from '../../registry/types.ts';

/** A pod's readiness and availability as kube-controller-manager's podutil reads them. */

const readyCondition = (pod: KubeObject) =>
  (pod.status?.conditions ?? []).find((c: { type?: string }) => c?.type === 'Ready');

/** The Ready condition is True (podutil.IsPodReady). */
export const isPodReady = (pod: KubeObject): boolean => readyCondition(pod)?.status === 'True';

/** Running and Ready (the StatefulSet controller's isRunningAndReady). */
export const isRunningAndReady = (pod: KubeObject): boolean =>
  pod.status?.phase === 'Running' && isPodReady(pod);

/**
 * Milliseconds until a ready pod has been ready for `minReadySeconds` (0 once it has: available,
 * podutil.IsPodAvailable), or undefined when it is not ready.
 */
export function untilAvailable(
  pod: KubeObject,
  minReadySeconds: number,
  now = Date.now(),
): number | undefined {
  const ready = readyCondition(pod);
  if (ready?.status !== 'True') return undefined;
  if (!minReadySeconds) return 0;
  const since = Date.parse(ready.lastTransitionTime ?? '');
  if (Number.isNaN(since)) return 0;
  return Math.max(0, since + minReadySeconds * 1000 - now);
}

/** Ready for at least `minReadySeconds` (podutil.IsPodAvailable). */
export const isPodAvailable = (pod: KubeObject, minReadySeconds: number, now = Date.now()): boolean =>
  untilAvailable(pod, minReadySeconds, now) === 0;

/** The pod has a deletionTimestamp. */
export const isTerminating = (pod: KubeObject): boolean => !!pod.metadata?.deletionTimestamp;

/** The pod's phase is Failed or Succeeded: it will not run again. */
export const hasFinished = (pod: KubeObject): boolean =>
  pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded';

/** The controller owner reference of an object, if any. */
export function controllerOf(
  obj: KubeObject,
): { apiVersion?: string; kind?: string; name?: string; uid?: string } | undefined {
  return (obj.metadata?.ownerReferences ?? []).find((r: { controller?: boolean }) => r?.controller);
}
