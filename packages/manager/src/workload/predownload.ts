import {
  IMAGE_PREDOWNLOAD_MIN_UPDATED_READY_PODS_ANNOTATION,
  IMAGE_PREDOWNLOAD_PARALLELISM_ANNOTATION,
  IMAGE_PREDOWNLOAD_TIMEOUT_SECONDS_ANNOTATION,
  type ImagePullJob,
  KruiseResources,
  type LabelSelector,
} from '@kruise/api';
import { scaledValue } from '@kruise/kube-compat';
import { CONTROLLER_REVISION_HASH_KEY } from '@kruise/kube-compat/controller-revision';
import {
  type EventType,
  isAlreadyExists,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type Logger,
  Resources,
} from '@kruise/runtime';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { templateFromRevision } from './inplaceupdate/calculate.ts';
import { controllerRef } from './revision/history.ts';

/**
 * Image pre-download for workloads (gate PreDownloadImageForInPlaceUpdate): before an update that
 * goes in place, one ImagePullJob per changed image pulls it on the nodes of the pods not yet at the
 * update revision; the update revision is labelled once that was decided. CloneSet and Advanced
 * StatefulSet decide differently when to pull (their own plans); the jobs and their upkeep are shared.
 */

/** Revision label: ImagePullJobs were created for this revision. (sic, upstream's spelling) */
export const PREDOWNLOAD_CREATED_LABEL = 'apps.kruise.io/pre-predownload-created';
/** Revision label: this revision needs no pre-download. */
export const PREDOWNLOAD_IGNORED_LABEL = 'apps.kruise.io/image-predownload-ignored';
/** Workloads of this many replicas or fewer never pre-download. */
export const MINIMUM_REPLICAS_TO_PREDOWNLOAD = 3;

/** The workload whose pods the jobs serve. */
export interface PreDownloadOwner {
  apiVersion: string;
  kind: string;
  metadata?: { name?: string; namespace?: string; uid?: string; annotations?: Record<string, string> };
  spec?: { replicas?: number; selector?: LabelSelector; template?: PodTemplateSpec };
  status?: { updateRevision?: string; updatedReadyReplicas?: number };
}

/** The images of the update revision that the current revision's containers do not run. */
export function changedImages(
  current: ControllerRevision,
  update: ControllerRevision,
): Record<string, string> {
  const before = new Map(
    (templateFromRevision(current).spec?.containers ?? []).map((c) => [c.name, c.image]),
  );
  const out: Record<string, string> = {};
  for (const c of templateFromRevision(update).spec?.containers ?? [])
    if (!before.has(c.name) || before.get(c.name) !== c.image) out[c.name] = c.image ?? '';
  return out;
}

/** What pre-download does for an update revision: nothing (marked already), mark it ignored, or create jobs. */
export type PreDownloadPlan =
  | { action: 'none' }
  | { action: 'ignore' }
  | { action: 'create'; jobs: ImagePullJob[] };

/** Whether the update revision was decided already (labelled created or ignored). */
export const preDownloadDecided = (update: ControllerRevision) => {
  const labels = update.metadata?.labels ?? {};
  return PREDOWNLOAD_CREATED_LABEL in labels || PREDOWNLOAD_IGNORED_LABEL in labels;
};

/**
 * One ImagePullJob per changed image (upstream's CreateJobForWorkload), named
 * `<revision>-<container>`, owned by the workload, pulling on the nodes of its pods not yet at the
 * update revision (by its name or its `hash`), with the parallelism and timeout of the workload's
 * annotations.
 */
export function imagePullJobs(
  owner: PreDownloadOwner,
  current: ControllerRevision,
  update: ControllerRevision,
  hash = update.metadata?.labels?.[CONTROLLER_REVISION_HASH_KEY] ?? '',
): ImagePullJob[] {
  const spec = owner.spec ?? {};
  const jobLabels = { ...(spec.template?.metadata?.labels ?? {}), [CONTROLLER_REVISION_HASH_KEY]: hash };
  const annotations = { ...(spec.template?.metadata?.annotations ?? {}) };
  const integer = (text: string | undefined, fallback: number) =>
    /^[+-]?\d+$/.test(text ?? '') ? Number(text) : fallback;
  const timeout = integer(owner.metadata?.annotations?.[IMAGE_PREDOWNLOAD_TIMEOUT_SECONDS_ANNOTATION], 300);
  const parallelism = integer(owner.metadata?.annotations?.[IMAGE_PREDOWNLOAD_PARALLELISM_ANNOTATION], 1);
  const pullSecrets = (spec.template?.spec?.imagePullSecrets ?? []).map((s) => s.name ?? '');
  const podSelector = {
    ...spec.selector,
    matchExpressions: [
      ...(spec.selector?.matchExpressions ?? []),
      { key: 'controller-revision-hash', operator: 'NotIn', values: [update.metadata?.name ?? '', hash] },
    ],
  };
  const ref = controllerRef({
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    metadata: { name: owner.metadata?.name ?? '', uid: owner.metadata?.uid ?? '' },
  });
  return Object.entries(changedImages(current, update)).map(
    ([container, image]): ImagePullJob => ({
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'ImagePullJob',
      metadata: {
        namespace: owner.metadata?.namespace,
        name: `${update.metadata?.name}-${container}`,
        ownerReferences: [ref as never],
        labels: jobLabels,
      },
      spec: {
        image,
        ...(pullSecrets.length ? { pullSecrets } : {}),
        podSelector,
        parallelism,
        pullPolicy: { backoffLimit: 1, timeoutSeconds: timeout },
        completionPolicy: { type: 'Always', ttlSecondsAfterFinished: 600 },
        sandboxConfig: { labels: jobLabels, annotations },
      },
    }),
  );
}

/** Upstream's minUpdatedReadyPods: the annotation as an int or a percentage of replicas (rounded up), else 0. */
function minUpdatedReadyPods(owner: PreDownloadOwner): number {
  const text = owner.metadata?.annotations?.[IMAGE_PREDOWNLOAD_MIN_UPDATED_READY_PODS_ANNOTATION];
  if (text === undefined) return 0;
  try {
    return scaledValue(/^[+-]?\d+$/.test(text) ? Number(text) : text, owner.spec?.replicas ?? 1, true);
  } catch {
    return 0;
  }
}

/** What the upkeep needs. */
export interface PreDownloadDeps {
  client: KubeClient;
  event(owner: PreDownloadOwner, type: EventType, reason: string, message: string): void;
  /** The ImagePullJobs the workload owns (cached). */
  ownedJobs(owner: PreDownloadOwner): ImagePullJob[];
  /** Told the stored revision after it was labelled. */
  revisionLabelled(revision: ControllerRevision): void;
  log: Logger;
}

const errText = (err: unknown) => (err as Error)?.message ?? String(err);

/**
 * The upkeep of one reconcile (upstream's doPreDownload): while the revisions differ and enough
 * updated pods are ready (the min-updated-ready-pods annotation), the plan is carried out once —
 * jobs created, the update revision labelled created (or ignored); once they agree, the workload's
 * ImagePullJobs are deleted. Errors are logged, as upstream's.
 */
export async function syncPreDownload(
  d: PreDownloadDeps,
  owner: PreDownloadOwner,
  current: ControllerRevision,
  update: ControllerRevision,
  plan: () => PreDownloadPlan,
): Promise<void> {
  try {
    if (current.metadata?.name === update.metadata?.name) {
      for (const job of d.ownedJobs(owner))
        await d.client
          .delete(KruiseResources.ImagePullJob, job.metadata?.namespace, job.metadata?.name ?? '')
          .catch((err) => {
            if (!isNotFound(err)) throw err;
          });
      return;
    }
    const updatedReady =
      update.metadata?.name === owner.status?.updateRevision ? (owner.status?.updatedReadyReplicas ?? 0) : 0;
    if (minUpdatedReadyPods(owner) > updatedReady) return;
    const decided = plan();
    if (decided.action === 'none') return;
    if (decided.action === 'create')
      for (const job of decided.jobs) {
        const name = job.metadata?.name ?? '';
        try {
          await d.client.create(KruiseResources.ImagePullJob, job as unknown as KubeObject);
          d.event(
            owner,
            'Normal',
            'CreatedImagePullJob',
            `created ImagePullJob ${name} for image: ${job.spec?.image}`,
          );
        } catch (err) {
          if (!isAlreadyExists(err))
            d.event(
              owner,
              'Normal',
              'FailedCreateImagePullJob',
              `failed to create ImagePullJob ${name}: ${errText(err)}`,
            );
        }
      }
    const label = decided.action === 'create' ? PREDOWNLOAD_CREATED_LABEL : PREDOWNLOAD_IGNORED_LABEL;
    const got = await d.client.mergePatch(
      Resources.ControllerRevision,
      update.metadata?.namespace,
      update.metadata?.name ?? '',
      {
        metadata: { labels: { [label]: 'true' } },
      },
    );
    if (got.metadata?.resourceVersion !== update.metadata?.resourceVersion)
      d.revisionLabelled(got as unknown as ControllerRevision);
  } catch (err) {
    d.log.error({ err: errText(err) }, 'failed to pre-download images for the update revision');
  }
}
