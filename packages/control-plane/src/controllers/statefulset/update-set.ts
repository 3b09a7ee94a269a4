import { intPercentValue } from '@kruise/kube-compat/intstr';
import { claimOwnerMatches } from '@kruise/kube-compat/statefulset-claim-retention';
import { identityMatches, storageMatches } from '@kruise/kube-compat/statefulset-identity';
import { inRange, parentAndOrdinal, replicasRange } from '@kruise/kube-compat/statefulset-ordinals';
import type { KubeObject } from '../../registry/types.ts';
import { hasFinished, isRunningAndReady, isTerminating, untilAvailable } from '../workloads/pod-state.ts';
import { newStatefulSetPod, podRevision } from './pods.ts';
import type { SetRevisions } from './revisions.ts';

/** What one pass does to the set's pods and claims (the StatefulPodControl). */
export interface StatefulPodWriter {
  /** Creates the pod's missing claims, then the pod. */
  createPod(set: KubeObject, pod: KubeObject): Promise<void>;
  /** Creates the claims a pending pod lacks. */
  createMissingClaims(set: KubeObject, pod: KubeObject): Promise<void>;
  /** Restores the pod's identity, storage and its claims' owner references. */
  updatePod(set: KubeObject, pod: KubeObject, scaledDown: boolean): Promise<void>;
  deletePod(set: KubeObject, pod: KubeObject): Promise<void>;
  /** The pod's claims, by name, as stored. */
  claims(set: KubeObject, pod: KubeObject): KubeObject[];
}

/** The set at a revision: its template replaced by the revision's (ApplyRevision). */
export function applyRevision(set: KubeObject, revision: KubeObject): KubeObject {
  const template = structuredClone(revision.data?.spec?.template ?? {});
  delete template.$patch;
  return { ...set, spec: { ...set.spec, template } };
}

/** The set's first ordinal (spec.ordinals.start). */
export const startOrdinal = (set: KubeObject): number => set.spec?.ordinals?.start ?? 0;

/** Healthy: running, ready, available for minReadySeconds and not terminating. */
function isHealthy(pod: KubeObject, minReadySeconds: number): boolean {
  return isRunningAndReady(pod) && !isTerminating(pod) && untilAvailable(pod, minReadySeconds) === 0;
}

/** The outcome of a pass: when to look again (minReadySeconds), if at all. */
export interface PassResult {
  requeueAfter?: number;
}

/**
 * One pass of the StatefulSet controller over a set (updateStatefulSet as of Kubernetes 1.33):
 * replaces failed pods, creates missing ones (after their claims) in ordinal order — one at a time,
 * each waiting for its predecessors to be Running and Ready, under OrderedReady; all at once under
 * Parallel — restores identities and claim ownership, deletes condemned pods highest ordinal first,
 * then rolls the update from the highest ordinal down to the partition (maxUnavailable at a time
 * when set, else one), unless the strategy is OnDelete.
 */
export async function updateStatefulSet(
  set: KubeObject,
  pods: KubeObject[],
  revisions: SetRevisions,
  writer: StatefulPodWriter,
): Promise<PassResult> {
  const result: PassResult = {};
  const wake = (ms: number | undefined) => {
    if (ms !== undefined && ms > 0) result.requeueAfter = Math.min(result.requeueAfter ?? ms, ms);
  };
  const currentSet = applyRevision(set, revisions.current);
  const updateSet = applyRevision(set, revisions.update);
  const currentName = revisions.current.metadata?.name;
  const updateName = revisions.update.metadata?.name;
  const start = startOrdinal(set);
  const replicaCount: number = set.spec?.replicas ?? 1;
  const range = replicasRange(replicaCount, start, new Set());
  const minReady: number = set.spec?.minReadySeconds ?? 0;
  const monotonic = (set.spec?.podManagementPolicy ?? 'OrderedReady') !== 'Parallel';
  const strategy = set.spec?.updateStrategy ?? {};
  const partition: number = strategy.type === 'RollingUpdate' ? (strategy.rollingUpdate?.partition ?? 0) : 0;

  const replicas: (KubeObject | undefined)[] = new Array(replicaCount).fill(undefined);
  const condemned: KubeObject[] = [];
  for (const pod of pods) {
    const { parent, ordinal } = parentAndOrdinal(pod.metadata?.name ?? '');
    if (ordinal < 0 || parent !== set.metadata?.name) continue;
    if (inRange(ordinal, range)) replicas[ordinal - start] = pod;
    else condemned.push(pod);
  }
  condemned.sort(
    (a, b) => parentAndOrdinal(a.metadata?.name).ordinal - parentAndOrdinal(b.metadata?.name).ordinal,
  );

  // newVersionedStatefulSetPod: below the partition at the current revision, else the update's.
  const versioned = (ordinal: number) =>
    strategy.type === 'RollingUpdate' && ordinal < start + partition
      ? newStatefulSetPod(currentSet, ordinal, currentName)
      : newStatefulSetPod(updateSet, ordinal, updateName);

  let firstUnhealthy: KubeObject | undefined;
  for (const pod of [...replicas, ...condemned])
    if (pod && !isHealthy(pod, minReady)) {
      firstUnhealthy = pod;
      break;
    }
  if (set.metadata?.deletionTimestamp) return result;

  for (let i = 0; i < replicaCount; i++) {
    const pod = replicas[i];
    const ordinal = start + i;
    if (pod && hasFinished(pod)) {
      // Deleted now, made again on the next pass once it is gone.
      if (!isTerminating(pod)) await writer.deletePod(set, pod);
      if (monotonic) return result;
      continue;
    }
    if (!pod) {
      await writer.createPod(set, versioned(ordinal));
      if (monotonic) return result;
      continue;
    }
    if (pod.status?.phase === 'Pending' || !pod.status?.phase)
      await writer.createMissingClaims(updateSet, pod);
    if (isTerminating(pod)) {
      if (monotonic) return result;
      continue;
    }
    if (!isRunningAndReady(pod) && monotonic) return result;
    const wait = untilAvailable(pod, minReady);
    if (monotonic && wait !== 0) {
      wake(wait);
      return result;
    }
    wake(wait);
    const claimsOk = writer.claims(updateSet, pod).every((c) => claimOwnerMatches(c, set, pod, false));
    if (identityMatches(updateSet, pod) && storageMatches(updateSet, pod) && claimsOk) continue;
    await writer.updatePod(updateSet, pod, false);
  }

  // Claims of condemned pods move to the retention policy's owner before the pods go.
  for (const pod of condemned)
    if (!writer.claims(updateSet, pod).every((c) => claimOwnerMatches(c, set, pod, true)))
      await writer.updatePod(updateSet, pod, true);

  for (let target = condemned.length - 1; target >= 0; target--) {
    const pod = condemned[target]!;
    if (isTerminating(pod)) {
      if (monotonic) return result;
      continue;
    }
    if (monotonic && pod !== firstUnhealthy && !isHealthy(pod, minReady)) {
      wake(untilAvailable(pod, minReady));
      return result;
    }
    await writer.deletePod(set, pod);
    if (monotonic) return result;
  }

  if (strategy.type === 'OnDelete') return result;
  const maxUnavailableSpec = strategy.rollingUpdate?.maxUnavailable;
  if (maxUnavailableSpec !== undefined && maxUnavailableSpec !== null) {
    let maxUnavailable = 1;
    try {
      maxUnavailable = Math.max(1, intPercentValue(maxUnavailableSpec, replicaCount, true));
    } catch {
      maxUnavailable = 1;
    }
    let unavailable = 0;
    for (const pod of replicas) if (!pod || !isHealthy(pod, minReady)) unavailable++;
    let budget = maxUnavailable - unavailable;
    for (let target = replicaCount - 1; target >= partition && budget > 0; target--) {
      const pod = replicas[target];
      if (!pod || isTerminating(pod) || podRevision(pod) === updateName) continue;
      await writer.deletePod(set, pod);
      budget--;
    }
    return result;
  }
  for (let target = replicaCount - 1; target >= partition; target--) {
    const pod = replicas[target];
    if (!pod) return result;
    if (podRevision(pod) !== updateName && !isTerminating(pod)) {
      await writer.deletePod(set, pod);
      return result;
    }
    if (!isHealthy(pod, minReady)) {
      wake(untilAvailable(pod, minReady));
      return result;
    }
  }
  return result;
}
