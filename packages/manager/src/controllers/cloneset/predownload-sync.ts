import {
  type CloneSet,
  IMAGE_PREDOWNLOAD_MIN_UPDATED_READY_PODS_ANNOTATION,
  type ImagePullJob,
  KruiseResources,
} from '@kruise/api';
import { scaledValue } from '@kruise/kube-compat';
import { isAlreadyExists, isNotFound, type KubeObject, Resources } from '@kruise/runtime';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { PodControls } from '../../workload/pod-controls.ts';
import type { CloneSetDeps } from './context.ts';
import { PREDOWNLOAD_CREATED_LABEL, PREDOWNLOAD_IGNORED_LABEL, preDownloadPlan } from './predownload.ts';
import { message } from './scale.ts';
import { inPlaceOptions } from './update.ts';

/** What pre-download needs beside the sync dependencies: the ImagePullJobs a CloneSet owns (cached). */
export interface PreDownloadDeps
  extends Pick<CloneSetDeps, 'client' | 'event' | 'gates' | 'kubeletHash' | 'log'> {
  ownedJobs(cs: CloneSet): ImagePullJob[];
  resourceVersionExpectations: CloneSetDeps['resourceVersionExpectations'];
}

/** Upstream's minUpdatedReadyPods: the annotation as an int or a percentage of replicas (rounded up), else 0. */
function minUpdatedReadyPods(cs: CloneSet): number {
  const text = cs.metadata?.annotations?.[IMAGE_PREDOWNLOAD_MIN_UPDATED_READY_PODS_ANNOTATION];
  if (text === undefined) return 0;
  try {
    return scaledValue(/^[+-]?\d+$/.test(text) ? Number(text) : text, cs.spec?.replicas ?? 1, true);
  } catch {
    return 0;
  }
}

/**
 * Image pre-download for in-place updates (gate PreDownloadImageForInPlaceUpdate; upstream's
 * createImagePullJobsForInPlaceUpdate): while the revisions differ and enough updated pods are
 * ready, one ImagePullJob per changed image, and the update revision labelled created (or
 * ignored); once they agree, the CloneSet's ImagePullJobs are deleted. Errors are logged, as upstream.
 */
export async function syncPreDownload(
  d: PreDownloadDeps,
  controls: PodControls,
  cs: CloneSet,
  current: ControllerRevision,
  update: ControllerRevision,
): Promise<void> {
  try {
    if (current.metadata?.name === update.metadata?.name) {
      for (const job of d.ownedJobs(cs))
        await d.client
          .delete(KruiseResources.ImagePullJob, job.metadata?.namespace, job.metadata?.name ?? '')
          .catch((err) => {
            if (!isNotFound(err)) throw err;
          });
      return;
    }
    const updatedReady =
      update.metadata?.name === cs.status?.updateRevision ? (cs.status?.updatedReadyReplicas ?? 0) : 0;
    if (minUpdatedReadyPods(cs) > updatedReady) return;
    const plan = preDownloadPlan(
      cs,
      current,
      update,
      controls.inPlace.canUpdateInPlace(current, update, inPlaceOptions(cs, d)),
    );
    if (plan.action === 'none') return;
    if (plan.action === 'create')
      for (const job of plan.jobs) {
        const name = job.metadata?.name ?? '';
        try {
          await d.client.create(KruiseResources.ImagePullJob, job as unknown as KubeObject);
          d.event(
            cs,
            'Normal',
            'CreatedImagePullJob',
            `created ImagePullJob ${name} for image: ${job.spec?.image}`,
          );
        } catch (err) {
          if (!isAlreadyExists(err))
            d.event(
              cs,
              'Normal',
              'FailedCreateImagePullJob',
              `failed to create ImagePullJob ${name}: ${message(err)}`,
            );
        }
      }
    const label = plan.action === 'create' ? PREDOWNLOAD_CREATED_LABEL : PREDOWNLOAD_IGNORED_LABEL;
    const got = await d.client.mergePatch(
      Resources.ControllerRevision,
      update.metadata?.namespace,
      update.metadata?.name ?? '',
      {
        metadata: { labels: { [label]: 'true' } },
      },
    );
    if (got.metadata?.resourceVersion !== update.metadata?.resourceVersion)
      d.resourceVersionExpectations.expect(got);
  } catch (err) {
    d.log.error({ err: message(err) }, 'failed to pre-download images for the update revision');
  }
}
