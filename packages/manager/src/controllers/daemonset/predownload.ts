import type { DaemonSet } from '@kruise/api';
import { intPercentValueOrZero } from '@kruise/kube-compat';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import {
  imagePullJobs,
  type PreDownloadOwner,
  type PreDownloadPlan,
  preDownloadDecided,
} from '../../workload/predownload.ts';
import { DAEMONSET_API_VERSION } from './context.ts';
import { partitionOf } from './placement.ts';

/**
 * The DaemonSet as image pre-download sees it (gate PreDownloadImageForDaemonSetUpdate): its desired
 * number of nodes as the replicas, and the pods updated and ready so far, so the
 * `apps.kruise.io/image-predownload-min-updated-ready-pods` annotation holds the jobs back until
 * that many nodes run the new revision (upstream reads it and ignores it, #2541).
 */
export function preDownloadOwner(
  ds: DaemonSet,
  update: ControllerRevision,
  updatedReady: number,
): PreDownloadOwner {
  return {
    apiVersion: DAEMONSET_API_VERSION,
    kind: 'DaemonSet',
    metadata: ds.metadata,
    spec: {
      replicas: ds.status?.desiredNumberScheduled ?? 0,
      selector: ds.spec?.selector,
      template: ds.spec?.template,
    },
    status: { updateRevision: update.metadata?.name, updatedReadyReplicas: updatedReady },
  };
}

/**
 * Whether to pre-download the update revision's images (createImagePullJobsForInPlaceUpdate):
 * ignored when every node updates in one batch (partition 0 and maxUnavailable — default 1, rounded
 * up — at least the desired number) or the strategy is OnDelete; otherwise one ImagePullJob per
 * image that changed, pulling on the nodes whose pods are not at the update revision.
 */
export function preDownloadPlan(
  ds: DaemonSet,
  current: ControllerRevision,
  update: ControllerRevision,
  owner: PreDownloadOwner,
): PreDownloadPlan {
  if (preDownloadDecided(update)) return { action: 'none' };
  const strategy = ds.spec?.updateStrategy;
  if (strategy?.type === 'OnDelete') return { action: 'ignore' };
  const desired = ds.status?.desiredNumberScheduled ?? 0;
  const maxUnavailable = intPercentValueOrZero(strategy?.rollingUpdate?.maxUnavailable ?? 1, desired, true);
  if (partitionOf(ds, desired) === 0 && maxUnavailable >= desired) return { action: 'ignore' };
  return { action: 'create', jobs: imagePullJobs(owner, current, update) };
}
