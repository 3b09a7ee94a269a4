import {
  API_VERSION,
  compareTags,
  type ImagePullJob,
  type ImageTagPullPolicy,
  type NodeImage,
  type ReferenceObject,
} from '@kruise/api';
import { kubeTime } from '@kruise/kube-compat';

/** Settings the manager was started with that shape NodeImage tags. */
export interface TagSettings {
  /** `--default-ttlseconds-for-always-nodeimage` (default 300). */
  defaultTtlSecondsForAlways: number;
  /** Random numbers in [0, 1) (injectable for tests). */
  random: () => number;
  now: () => Date;
}

/** The pull policy a job puts on a new tag (upstream's TTL and deadline rules for Always and Never). */
export function tagPullPolicy(job: ImagePullJob, settings: TagSettings): ImageTagPullPolicy {
  const timeout = job.spec?.pullPolicy?.timeoutSeconds ?? 600;
  const backoff = job.spec?.pullPolicy?.backoffLimit ?? 3;
  const completion = job.spec?.completionPolicy ?? {};
  if ((completion.type ?? 'Always') === 'Never') {
    return {
      timeoutSeconds: timeout,
      backoffLimit: backoff,
      ttlSecondsAfterFinished: 86400 - 600 + Math.floor(settings.random() * 1200),
      activeDeadlineSeconds: Math.max(1800, timeout),
    };
  }
  const base =
    completion.ttlSecondsAfterFinished ?? completion.activeDeadlineSeconds ?? (timeout * backoff || 1800);
  return {
    timeoutSeconds: timeout,
    backoffLimit: backoff,
    ttlSecondsAfterFinished: base + settings.defaultTtlSecondsForAlways + Math.floor(settings.random() * 300),
    ...(completion.activeDeadlineSeconds !== undefined && completion.activeDeadlineSeconds !== null
      ? { activeDeadlineSeconds: completion.activeDeadlineSeconds }
      : {}),
  };
}

/** The policy of a tag shared by several jobs: long enough for each of them (upstream #2221 keeps the first). */
function mergePolicies(a: ImageTagPullPolicy | undefined, b: ImageTagPullPolicy): ImageTagPullPolicy {
  if (!a) return b;
  const max = (x: number | undefined, y: number | undefined) =>
    x === undefined ? y : y === undefined ? x : Math.max(x, y);
  const deadline =
    a.activeDeadlineSeconds === undefined || b.activeDeadlineSeconds === undefined
      ? undefined
      : Math.max(a.activeDeadlineSeconds, b.activeDeadlineSeconds);
  return {
    timeoutSeconds: max(a.timeoutSeconds, b.timeoutSeconds),
    backoffLimit: max(a.backoffLimit, b.backoffLimit),
    ttlSecondsAfterFinished: max(a.ttlSecondsAfterFinished, b.ttlSecondsAfterFinished),
    ...(deadline !== undefined ? { activeDeadlineSeconds: deadline } : {}),
  };
}

/**
 * Puts the job's tag on a NodeImage (mutating `ni`); returns whether anything changed.
 * New tag: version = last reported version + 1. Tag of other jobs: version bump, this owner added.
 * Tag already owned: only missing secret references are added.
 */
export function applyJobTag(
  ni: NodeImage,
  job: ImagePullJob,
  image: { name: string; tag: string },
  secretRefs: ReferenceObject[],
  settings: TagSettings,
): boolean {
  const uid = job.metadata?.uid;
  ni.spec ??= {};
  ni.spec.images ??= {};
  const before = JSON.stringify(ni.spec.images[image.name] ?? null);
  ni.spec.images[image.name] ??= { tags: [] };
  const spec = ni.spec.images[image.name]!;
  spec.tags ??= [];
  if (job.spec?.sandboxConfig) spec.sandboxConfig = structuredClone(job.spec.sandboxConfig);
  else delete spec.sandboxConfig;
  const owner = {
    apiVersion: API_VERSION,
    kind: 'ImagePullJob',
    name: job.metadata?.name,
    namespace: job.metadata?.namespace,
    uid,
  };
  const now = kubeTime(settings.now());
  const policy = tagPullPolicy(job, settings);
  const pullPolicy = job.spec?.imagePullPolicy ?? 'IfNotPresent';
  const tag = spec.tags.find((t) => t.tag === image.tag);
  if (!tag) {
    const reported = ni.status?.imageStatuses?.[image.name]?.tags?.find((t) => t.tag === image.tag)?.version;
    spec.tags.push({
      tag: image.tag,
      version: (reported ?? -1) + 1,
      ownerReferences: [owner],
      createdAt: now,
      imagePullPolicy: pullPolicy,
      pullPolicy: policy,
    });
  } else if (!(tag.ownerReferences ?? []).some((o) => o.uid === uid)) {
    tag.version = (tag.version ?? 0) + 1;
    tag.ownerReferences = [...(tag.ownerReferences ?? []), owner];
    tag.createdAt = now;
    tag.imagePullPolicy = pullPolicy;
    tag.pullPolicy = mergePolicies(tag.pullPolicy, policy);
  }
  spec.pullSecrets ??= [];
  const refs = spec.pullSecrets;
  for (const s of secretRefs) {
    if (!refs.some((r) => r.namespace === s.namespace && r.name === s.name)) refs.push(s);
  }
  if (refs.length === 0) delete spec.pullSecrets;
  spec.tags.sort(compareTags);
  return JSON.stringify(spec) !== before;
}
