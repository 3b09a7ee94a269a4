import type { StatefulSet } from '@kruise/api';
import { intPercentValueOrZero } from '@kruise/kube-compat';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import {
  imagePullJobs,
  MINIMUM_REPLICAS_TO_PREDOWNLOAD,
  type PreDownloadPlan,
  preDownloadDecided,
} from '../../workload/predownload.ts';
import { STATEFULSET_API_VERSION } from './revisions.ts';

/**
 * An Advanced StatefulSet's pre-download decision (upstream's createImagePullJobsForInPlaceUpdate of
 * the StatefulSet controller): ignored for OnDelete, without rollingUpdate or with podUpdatePolicy
 * ReCreate, for 3 replicas or fewer, when every pod updates in one batch (partition 0 and
 * maxUnavailable — default 1, rounded down — at least replicas) or when the change cannot be made in
 * place; otherwise one ImagePullJob per changed image.
 */
export function preDownloadPlan(
  set: StatefulSet,
  current: ControllerRevision,
  update: ControllerRevision,
  canUpdateInPlace: boolean,
): PreDownloadPlan {
  if (preDownloadDecided(update)) return { action: 'none' };
  const strategy = set.spec?.updateStrategy;
  const rolling = strategy?.rollingUpdate;
  if (strategy?.type === 'OnDelete' || !rolling || (rolling.podUpdatePolicy ?? 'ReCreate') === 'ReCreate')
    return { action: 'ignore' };
  const replicas = set.spec?.replicas ?? 1;
  if (replicas <= MINIMUM_REPLICAS_TO_PREDOWNLOAD) return { action: 'ignore' };
  const maxUnavailable = intPercentValueOrZero(rolling.maxUnavailable ?? '1', replicas, false);
  if ((rolling.partition ?? 0) === 0 && maxUnavailable >= replicas) return { action: 'ignore' };
  if (!canUpdateInPlace) return { action: 'ignore' };
  return {
    action: 'create',
    jobs: imagePullJobs(
      { ...set, apiVersion: STATEFULSET_API_VERSION, kind: 'StatefulSet' },
      current,
      update,
    ),
  };
}
