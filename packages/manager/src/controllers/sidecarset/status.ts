import type { SidecarSet, SidecarSetStatus } from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { isPodSidecarUpdated } from '../../workload/sidecarset/index.ts';
import { isPodReadyForSidecarSet, isPodStateConsistent } from './pod-state.ts';

/**
 * The SidecarSet's status over its matched pods (upstream's calculateStatus): matched, updated (at
 * the latest hash), ready (consistent and ready) and updated-and-ready; the latest revision and
 * collision count; and (beyond upstream) `missingSidecarPods` when some are.
 */
export function sidecarSetStatus(
  sidecarSet: SidecarSet,
  pods: Pod[],
  latestRevision: string,
  collisionCount: number,
  missing: number,
): SidecarSetStatus {
  let updatedPods = 0;
  let readyPods = 0;
  let updatedReadyPods = 0;
  for (const p of pods) {
    const updated = isPodSidecarUpdated(sidecarSet, p);
    if (updated) updatedPods++;
    if (isPodStateConsistent(sidecarSet, p) && isPodReadyForSidecarSet(sidecarSet, p)) {
      readyPods++;
      if (updated) updatedReadyPods++;
    }
  }
  return {
    observedGeneration: sidecarSet.metadata?.generation ?? 0,
    matchedPods: pods.length,
    updatedPods,
    readyPods,
    updatedReadyPods,
    latestRevision,
    collisionCount,
    ...(missing > 0 ? { missingSidecarPods: missing } : {}),
  };
}

/** Whether the status differs from the SidecarSet's (upstream's inconsistentStatus, and the missing count). */
export function statusChanged(sidecarSet: SidecarSet, status: SidecarSetStatus): boolean {
  const old: Partial<SidecarSetStatus> = sidecarSet.status ?? {};
  return (
    (status.observedGeneration ?? 0) > (old.observedGeneration ?? 0) ||
    status.matchedPods !== old.matchedPods ||
    status.updatedPods !== old.updatedPods ||
    status.readyPods !== old.readyPods ||
    status.updatedReadyPods !== old.updatedReadyPods ||
    status.latestRevision !== old.latestRevision ||
    status.collisionCount !== old.collisionCount ||
    (status.missingSidecarPods ?? 0) !== (old.missingSidecarPods ?? 0)
  );
}
