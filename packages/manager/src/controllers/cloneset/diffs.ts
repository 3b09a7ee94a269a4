import type { CloneSet } from '@kruise/api';
import { intPercentValueOrZero } from '@kruise/kube-compat';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { lifecycleState } from '../../workload/lifecycle/state.ts';
import { isSpecifiedDelete } from '../../workload/pod-state.ts';
import { hasRevision } from '../../workload/revision/pod-revision.ts';
import { isPodAvailable } from './availability.ts';
import { partitionReplicas } from './partition.ts';

/** Label on a CloneSet making scale counts leave out PreparingDelete pods. */
export const SCALING_EXCLUDE_PREPARING_DELETE_LABEL =
  'apps.kruise.io/cloneset-scaling-exclude-preparing-delete';

const MAX_INT32 = 2 ** 31 - 1;

/** What one reconcile should do (upstream's expectationDiffs; all 0 = nothing). */
export interface Diffs {
  /** Pods to create; of which at the current (old) revision. */
  scaleUpNum: number;
  scaleUpNumOldRevision: number;
  /** Pods to delete by scale-in; of which at old revisions. */
  scaleDownNum: number;
  scaleDownNumOldRevision: number;
  /** How many of the scale-up may be created now (scaleStrategy.maxUnavailable). */
  scaleUpLimit: number;
  /** How many ready pods may be deleted now. */
  deleteReadyLimit: number;
  /** Pods above replicas in use; of which at old revisions. */
  useSurge: number;
  useSurgeOldRevision: number;
  /** Pods to move to the update revision (negative: back to the current revision). */
  updateNum: number;
  updateMaxUnavailable: number;
}

/** Inputs beside the CloneSet and its pods. */
export interface DiffOptions {
  currentRevision: string;
  updateRevision: string;
  /** Gate CloneSetPartitionRollback: a raised partition rolls pods back. */
  partitionRollback?: boolean;
  /** Flag --cloneset-scaling-exclude-preparing-delete. */
  scalingExcludePreparingDelete?: boolean;
  /** Overrides "is at the update revision" (gate PreparingUpdateAsUpdate for scaling). */
  isUpdated?: (pod: Pod, updateRevision: string) => boolean;
  now: number;
}

/** Whether a pod is marked for deletion by label or by the CloneSet's podsToDelete. */
export function isCloneSetSpecifiedDelete(cs: CloneSet, pod: Pod): boolean {
  return (
    isSpecifiedDelete(pod) || (cs.spec?.scaleStrategy?.podsToDelete ?? []).includes(pod.metadata?.name ?? '')
  );
}

const oppositeSigns = (a: number, b: number) => (a > 0 && b < 0) || (a < 0 && b > 0);

/** The resolved numbers of a CloneSet's strategies: R, P, S, U, SU of the specification. */
export function strategyNumbers(cs: CloneSet) {
  const spec = cs.spec!;
  const replicas = spec.replicas ?? 1;
  let partition = 0;
  try {
    partition = partitionReplicas(spec.updateStrategy?.partition, spec.replicas);
  } catch {
    partition = 0;
  }
  let maxSurge = 0;
  if (spec.updateStrategy?.maxSurge !== undefined && spec.updateStrategy.maxSurge !== null) {
    maxSurge = intPercentValueOrZero(spec.updateStrategy.maxSurge, replicas, true);
    if (spec.updateStrategy.paused) maxSurge = 0;
  }
  const maxUnavailable = intPercentValueOrZero(
    spec.updateStrategy?.maxUnavailable ?? '20%',
    replicas,
    maxSurge === 0,
  );
  const scaleMaxUnavailable = intPercentValueOrZero(
    spec.scaleStrategy?.maxUnavailable ?? MAX_INT32,
    replicas,
    true,
  );
  return { replicas, partition, maxSurge, maxUnavailable, scaleMaxUnavailable };
}

/**
 * Upstream's calculateDiffsWithExpectation: from the pods at the update and older revisions,
 * their availability, specified deletions and PreparingDelete pods, how many pods to create,
 * delete and update this round, within partition, maxSurge and maxUnavailable.
 */
export function calculateDiffs(cs: CloneSet, pods: Pod[], opts: DiffOptions): Diffs {
  const res: Diffs = {
    scaleUpNum: 0,
    scaleUpNumOldRevision: 0,
    scaleDownNum: 0,
    scaleDownNumOldRevision: 0,
    scaleUpLimit: 0,
    deleteReadyLimit: 0,
    useSurge: 0,
    useSurgeOldRevision: 0,
    updateNum: 0,
    updateMaxUnavailable: 0,
  };
  const { replicas, partition, maxSurge, maxUnavailable, scaleMaxUnavailable } = strategyNumbers(cs);
  const isUpdated = opts.isUpdated ?? ((p: Pod, rev: string) => hasRevision(p.metadata?.labels, rev));
  const minReady = cs.spec?.minReadySeconds ?? 0;
  const n = {
    new: 0,
    old: 0,
    activeNew: 0,
    activeOld: 0,
    unavailNew: 0,
    unavailOld: 0,
    delNew: 0,
    delOld: 0,
    preDelNew: 0,
    preDelOld: 0,
  };
  for (const p of pods) {
    const updated = isUpdated(p, opts.updateRevision);
    if (updated) n.new++;
    else n.old++;
    if (lifecycleState(p) === 'PreparingDelete') {
      if (updated) n.preDelNew++;
      else n.preDelOld++;
      continue;
    }
    if (updated) n.activeNew++;
    else n.activeOld++;
    if (isCloneSetSpecifiedDelete(cs, p)) {
      if (updated) n.delNew++;
      else n.delOld++;
    } else if (!isPodAvailable(p, minReady, opts.now)) {
      if (updated) n.unavailNew++;
      else n.unavailOld++;
    }
  }

  let oldDiff = n.activeOld - partition;
  let newDiff = n.activeNew - (replicas - partition);
  const totalUnavailable = n.preDelNew + n.preDelOld + n.unavailNew + n.unavailOld;
  if (opts.updateRevision === opts.currentRevision || !opts.partitionRollback) {
    oldDiff = Math.max(oldDiff, 0);
    newDiff = Math.min(newDiff, 0);
  }

  if (maxSurge > 0) {
    let scaleSurge = 0;
    let scaleOldSurge = 0;
    const toDelete = n.delNew + n.delOld;
    if (toDelete > 0) {
      scaleSurge = Math.min(Math.max(totalUnavailable + toDelete - maxUnavailable, 0), toDelete);
      if (scaleSurge > n.delNew) scaleOldSurge = scaleSurge - n.delNew;
    }
    let updateSurge = 0;
    let updateOldSurge = 0;
    if (oppositeSigns(oldDiff, newDiff)) {
      if (Math.abs(oldDiff) <= Math.abs(newDiff)) {
        updateSurge = Math.abs(oldDiff);
        if (oldDiff < 0) updateOldSurge = updateSurge;
      } else {
        updateSurge = Math.abs(newDiff);
        if (newDiff > 0) updateOldSurge = updateSurge;
      }
    }
    if (scaleSurge >= updateSurge) {
      res.useSurge = Math.min(maxSurge, scaleSurge);
      res.useSurgeOldRevision = Math.min(res.useSurge, scaleOldSurge);
    } else {
      res.useSurge = Math.min(maxSurge, updateSurge);
      res.useSurgeOldRevision = Math.min(res.useSurge, updateOldSurge);
    }
  }

  let currentTotal = pods.length;
  let currentOld = n.old;
  if (
    opts.scalingExcludePreparingDelete ||
    cs.metadata?.labels?.[SCALING_EXCLUDE_PREPARING_DELETE_LABEL] === 'true'
  ) {
    currentTotal -= n.preDelOld + n.preDelNew;
    currentOld -= n.preDelOld;
  }
  const expectedTotal = replicas + res.useSurge;
  const expectedOld = partition + res.useSurgeOldRevision;

  if (expectedTotal - currentTotal > 0) {
    res.scaleUpNum = expectedTotal - currentTotal;
    res.scaleUpNumOldRevision = Math.max(expectedOld - currentOld, 0);
    res.scaleUpLimit = Math.min(res.scaleUpNum, Math.max(scaleMaxUnavailable - totalUnavailable, 0));
  }
  const down = currentTotal - n.delOld - n.delNew - expectedTotal;
  if (down > 0) {
    res.scaleDownNum = down;
    res.scaleDownNumOldRevision = Math.max(currentOld - n.delOld - expectedOld, 0);
  }
  if (n.delNew > 0 || n.delOld > 0 || res.scaleDownNum > 0)
    res.deleteReadyLimit = Math.max(maxUnavailable + (pods.length - replicas) - totalUnavailable, 0);

  res.updateNum = (Math.abs(oldDiff) <= Math.abs(newDiff) ? oldDiff : -newDiff) || 0;
  if (res.updateNum !== 0) res.updateMaxUnavailable = maxUnavailable + pods.length - replicas;
  return res;
}
