import type { CloneSet, ImagePullJob } from '@kruise/api';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { PodControls } from '../../workload/pod-controls.ts';
import { syncPreDownload as syncWorkloadPreDownload } from '../../workload/predownload.ts';
import type { CloneSetDeps } from './context.ts';
import { preDownloadPlan } from './predownload.ts';
import { inPlaceOptions } from './update.ts';

/** What pre-download needs beside the sync dependencies: the ImagePullJobs a CloneSet owns (cached). */
export interface PreDownloadDeps
  extends Pick<CloneSetDeps, 'client' | 'event' | 'gates' | 'kubeletHash' | 'log'> {
  ownedJobs(cs: CloneSet): ImagePullJob[];
  resourceVersionExpectations: CloneSetDeps['resourceVersionExpectations'];
}

/** A CloneSet's image pre-download (gate PreDownloadImageForInPlaceUpdate), with the CloneSet's plan. */
export function syncPreDownload(
  d: PreDownloadDeps,
  controls: PodControls,
  cs: CloneSet,
  current: ControllerRevision,
  update: ControllerRevision,
): Promise<void> {
  return syncWorkloadPreDownload(
    {
      client: d.client,
      event: (_owner, type, reason, message) => d.event(cs, type, reason, message),
      ownedJobs: () => d.ownedJobs(cs),
      revisionLabelled: (r) => d.resourceVersionExpectations.expect(r),
      log: d.log,
    },
    { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', ...cs },
    current,
    update,
    () =>
      preDownloadPlan(
        cs,
        current,
        update,
        controls.inPlace.canUpdateInPlace(current, update, inPlaceOptions(cs, d)),
      ),
  );
}
