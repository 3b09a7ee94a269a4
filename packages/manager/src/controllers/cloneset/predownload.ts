import {
  type CloneSet,
  IMAGE_PREDOWNLOAD_PARALLELISM_ANNOTATION,
  IMAGE_PREDOWNLOAD_TIMEOUT_SECONDS_ANNOTATION,
  type ImagePullJob,
} from '@kruise/api';
import { intPercentValueOrZero } from '@kruise/kube-compat';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import { templateFromRevision } from '../../workload/inplaceupdate/calculate.ts';
import { CONTROLLER_REVISION_HASH_KEY, controllerRef } from '../../workload/revision/history.ts';
import { partitionReplicas } from './partition.ts';

/** Revision label: ImagePullJobs were created for this revision. (sic, upstream's spelling) */
export const PREDOWNLOAD_CREATED_LABEL = 'apps.kruise.io/pre-predownload-created';
/** Revision label: this revision needs no pre-download. */
export const PREDOWNLOAD_IGNORED_LABEL = 'apps.kruise.io/image-predownload-ignored';
/** CloneSets of this many replicas or fewer never pre-download. */
export const MINIMUM_REPLICAS_TO_PREDOWNLOAD = 3;

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

/**
 * Upstream's createImagePullJobsForInPlaceUpdate, decided: ignored for ReCreate, for 3 replicas or
 * fewer, when everything updates in one batch (partition 0 and maxUnavailable, rounded down, at
 * least replicas) or when the change cannot be made in place; otherwise one ImagePullJob per changed
 * image, named `<revision>-<container>`, pulling on the nodes of pods not yet at the revision.
 */
export function preDownloadPlan(
  cs: CloneSet,
  current: ControllerRevision,
  update: ControllerRevision,
  canUpdateInPlace: boolean,
): PreDownloadPlan {
  const labels = update.metadata?.labels ?? {};
  if (PREDOWNLOAD_CREATED_LABEL in labels || PREDOWNLOAD_IGNORED_LABEL in labels) return { action: 'none' };
  const spec = cs.spec!;
  const replicas = spec.replicas ?? 1;
  if (spec.updateStrategy?.type === 'ReCreate' || replicas <= MINIMUM_REPLICAS_TO_PREDOWNLOAD)
    return { action: 'ignore' };
  const partition = partitionReplicas(spec.updateStrategy?.partition, spec.replicas);
  const maxUnavailable = intPercentValueOrZero(spec.updateStrategy?.maxUnavailable ?? '20%', replicas, false);
  if (partition === 0 && maxUnavailable >= replicas) return { action: 'ignore' };
  if (!canUpdateInPlace) return { action: 'ignore' };

  const hash = labels[CONTROLLER_REVISION_HASH_KEY] ?? '';
  const jobLabels = { ...(spec.template.metadata?.labels ?? {}), [CONTROLLER_REVISION_HASH_KEY]: hash };
  const annotations = { ...(spec.template.metadata?.annotations ?? {}) };
  const integer = (text: string | undefined, fallback: number) =>
    /^[+-]?\d+$/.test(text ?? '') ? Number(text) : fallback;
  const timeout = integer(cs.metadata?.annotations?.[IMAGE_PREDOWNLOAD_TIMEOUT_SECONDS_ANNOTATION], 300);
  const parallelism = integer(cs.metadata?.annotations?.[IMAGE_PREDOWNLOAD_PARALLELISM_ANNOTATION], 1);
  const pullSecrets = (spec.template.spec?.imagePullSecrets ?? []).map((s) => s.name ?? '');
  const podSelector = {
    ...spec.selector,
    matchExpressions: [
      ...(spec.selector.matchExpressions ?? []),
      { key: 'controller-revision-hash', operator: 'NotIn', values: [update.metadata?.name ?? '', hash] },
    ],
  };
  const owner = controllerRef({
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name: cs.metadata?.name ?? '', uid: cs.metadata?.uid ?? '' },
  });
  const jobs = Object.entries(changedImages(current, update)).map(
    ([container, image]): ImagePullJob => ({
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'ImagePullJob',
      metadata: {
        namespace: cs.metadata?.namespace,
        name: `${update.metadata?.name}-${container}`,
        ownerReferences: [owner as never],
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
  return { action: 'create', jobs };
}
