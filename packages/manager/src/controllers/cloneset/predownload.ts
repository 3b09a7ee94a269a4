import type { CloneSet } from '@kruise/api';
import { intPercentValueOrZero } from '@kruise/kube-compat';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import {
  imagePullJobs,
  MINIMUM_REPLICAS_TO_PREDOWNLOAD,
  type PreDownloadPlan,
  preDownloadDecided,
} from '../../workload/predownload.ts';
import { partitionReplicas } from './partition.ts';

/**
 * A CloneSet's pre-download decision (upstream's createImagePullJobsForInPlaceUpdate of the CloneSet
 * controller): ignored for ReCreate, for 3 replicas or fewer, when everything updates in one batch
 * (partition 0 and maxUnavailable, rounded down, at least replicas) or when the change cannot be
 * made in place; otherwise one ImagePullJob per changed image.
 */
export function preDownloadPlan(
  cs: CloneSet,
  current: ControllerRevision,
  update: ControllerRevision,
  canUpdateInPlace: boolean,
): PreDownloadPlan {
  if (preDownloadDecided(update)) return { action: 'none' };
  const spec = cs.spec!;
  const replicas = spec.replicas ?? 1;
  if (spec.updateStrategy?.type === 'ReCreate' || replicas <= MINIMUM_REPLICAS_TO_PREDOWNLOAD)
    return { action: 'ignore' };
  const partition = partitionReplicas(spec.updateStrategy?.partition, spec.replicas);
  const maxUnavailable = intPercentValueOrZero(spec.updateStrategy?.maxUnavailable ?? '20%', replicas, false);
  if (partition === 0 && maxUnavailable >= replicas) return { action: 'ignore' };
  if (!canUpdateInPlace) return { action: 'ignore' };
  return {
    action: 'create',
    jobs: imagePullJobs({ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', ...cs }, current, update),
  };
}
