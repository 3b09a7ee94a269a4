import { FAKE_NODEIMAGE_LABEL, type ImagePullJob, type NodeImage, SECRET_MODE_BATCH } from '@kruise/api';

/** What the spec pass needs to look up. */
export interface SpecPassLookups {
  /** The job at `ns/name`, from the cache. */
  job(namespace: string, name: string): ImagePullJob | undefined;
  /** Whether a (non-batch) pull secret exists. */
  secretExists(namespace: string, name: string): Promise<boolean>;
  now: Date;
}

/**
 * Upstream's NodeImage spec pass, on a copy: labels copied from the Node; tags without createdAt
 * dropped; owners whose ImagePullJob is gone (or has another UID) dropped, and tags left without
 * owners; tags whose same-version status finished longer ago than their TTL dropped; non-batch
 * pull secrets that no longer exist dropped; images left without tags dropped.
 * Returns the new NodeImage and the earliest time a TTL will expire.
 */
export async function specPass(
  ni: NodeImage,
  nodeLabels: Record<string, string>,
  lookups: SpecPassLookups,
): Promise<{ next: NodeImage; nextExpiry?: number }> {
  const next = structuredClone(ni);
  const fake = ni.metadata?.labels?.[FAKE_NODEIMAGE_LABEL] !== undefined;
  if (!fake) next.metadata = { ...next.metadata, labels: { ...nodeLabels } };
  let nextExpiry: number | undefined;
  const images = next.spec?.images ?? {};
  for (const [name, image] of Object.entries(images)) {
    const statuses = next.status?.imageStatuses?.[name]?.tags ?? [];
    image.tags = (image.tags ?? []).filter((tag) => {
      if (!tag.createdAt) return false;
      tag.ownerReferences = (tag.ownerReferences ?? []).filter((o) => {
        if (o.kind !== 'ImagePullJob') return true;
        const job = lookups.job(o.namespace ?? '', o.name ?? '');
        return job !== undefined && job.metadata?.uid === o.uid;
      });
      if (tag.ownerReferences.length === 0) return false;
      const status = statuses.find((s) => s.tag === tag.tag && (s.version ?? 0) === (tag.version ?? 0));
      const ttl = tag.pullPolicy?.ttlSecondsAfterFinished;
      if (status?.completionTime && ttl !== undefined && ttl !== null) {
        const expiry = Date.parse(status.completionTime) + ttl * 1000;
        if (expiry <= lookups.now.getTime()) return false;
        nextExpiry = Math.min(nextExpiry ?? expiry, expiry);
      }
      return true;
    });
    const kept = [];
    for (const secret of image.pullSecrets ?? []) {
      if (
        secret.mode === SECRET_MODE_BATCH ||
        (await lookups.secretExists(secret.namespace ?? '', secret.name ?? ''))
      )
        kept.push(secret);
    }
    if (image.pullSecrets) image.pullSecrets = kept;
    if (image.pullSecrets?.length === 0) delete image.pullSecrets;
    if (image.tags.length === 0) delete images[name];
  }
  return { next, ...(nextExpiry !== undefined ? { nextExpiry } : {}) };
}
