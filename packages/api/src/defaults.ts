import { isoTime } from '@kruise/kube-compat';
import { setPodSpecDefaults, setVolumeClaimTemplateDefaults } from './pod-defaults.ts';
import type { CloneSet } from './schema/cloneset.ts';
import type { ImageListPullJob } from './schema/imagelistpulljob.ts';
import type { ImagePullJob, ImagePullJobTemplate } from './schema/imagepulljob.ts';
import type { ImageTagPullPolicy, NodeImage } from './schema/nodeimage.ts';

/** Default pull timeout of one attempt, in seconds. */
export const DEFAULT_PULL_TIMEOUT_SECONDS = 600;
/** Default number of retries after the first attempt. */
export const DEFAULT_PULL_BACKOFF_LIMIT = 3;

function defaultTemplatePolicies(spec: ImagePullJobTemplate): void {
  spec.completionPolicy ??= {};
  if (!spec.completionPolicy.type) spec.completionPolicy.type = 'Always';
  spec.pullPolicy ??= {};
  spec.pullPolicy.timeoutSeconds ??= DEFAULT_PULL_TIMEOUT_SECONDS;
  spec.pullPolicy.backoffLimit ??= DEFAULT_PULL_BACKOFF_LIMIT;
}

/** Upstream's ImagePullJob defaults: completion type Always, timeout 600, backoff 3, IfNotPresent. Mutates `job`. */
export function setImagePullJobDefaults(job: ImagePullJob): ImagePullJob {
  job.spec ??= { image: '', completionPolicy: {} };
  defaultTemplatePolicies(job.spec);
  if (!job.spec.imagePullPolicy) job.spec.imagePullPolicy = 'IfNotPresent';
  return job;
}

/** Upstream's ImageListPullJob defaults: completion type and pull policy only. Mutates `job`. */
export function setImageListPullJobDefaults(job: ImageListPullJob): ImageListPullJob {
  job.spec ??= { images: [], completionPolicy: {} };
  defaultTemplatePolicies(job.spec);
  return job;
}

/** Orders tags by their tag string, as upstream keeps them. */
export function compareTags(a: { tag: string }, b: { tag: string }): number {
  return a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0;
}

/**
 * Upstream's NodeImage defaults: every tag gets `createdAt` (now) and a pull policy with
 * timeout 600 and backoff 3; spec and status tags are sorted by tag. Mutates `nodeImage`.
 */
export function setNodeImageDefaults(nodeImage: NodeImage, now: string = isoTime()): NodeImage {
  for (const image of Object.values(nodeImage.spec?.images ?? {})) {
    for (const tag of image.tags ?? []) {
      if (!tag.createdAt) tag.createdAt = now;
      const policy: ImageTagPullPolicy = tag.pullPolicy ?? {};
      policy.timeoutSeconds ??= DEFAULT_PULL_TIMEOUT_SECONDS;
      policy.backoffLimit ??= DEFAULT_PULL_BACKOFF_LIMIT;
      tag.pullPolicy = policy;
    }
    image.tags?.sort(compareTags);
  }
  for (const status of Object.values(nodeImage.status?.imageStatuses ?? {})) status.tags?.sort(compareTags);
  return nodeImage;
}

/** CloneSet's default maxUnavailable. */
export const DEFAULT_CLONESET_MAX_UNAVAILABLE = '20%';

/**
 * Upstream's SetDefaultsCloneSet: replicas 1, revisionHistoryLimit 10, update type ReCreate
 * (`inPlaceUpdateStrategy: {}` for the in-place types), partition 0, maxUnavailable 20%, maxSurge 0;
 * with `injectTemplateDefaults` the Kubernetes pod-template and volumeClaimTemplate defaults.
 * Mutates `cs`.
 */
export function setCloneSetDefaults(cs: CloneSet, injectTemplateDefaults: boolean): CloneSet {
  cs.spec ??= { selector: {}, template: {} };
  const spec = cs.spec;
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  if (injectTemplateDefaults) {
    spec.template ??= {};
    spec.template.spec ??= { containers: [] };
    setPodSpecDefaults(spec.template.spec);
    for (const vct of spec.volumeClaimTemplates ?? []) setVolumeClaimTemplateDefaults(vct);
  }
  spec.updateStrategy ??= {};
  const strategy = spec.updateStrategy;
  if (!strategy.type) strategy.type = 'ReCreate';
  else if (strategy.type === 'InPlaceIfPossible' || strategy.type === 'InPlaceOnly')
    strategy.inPlaceUpdateStrategy ??= {};
  strategy.partition ??= 0;
  strategy.maxUnavailable ??= DEFAULT_CLONESET_MAX_UNAVAILABLE;
  strategy.maxSurge ??= 0;
  return cs;
}
