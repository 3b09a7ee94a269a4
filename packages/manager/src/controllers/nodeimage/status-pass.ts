import type { ImageTagStatus, NodeImage, NodeImageStatus } from '@kruise/api';

import { kubeTime } from '@kruise/kube-compat';

/** A tag the status pass failed, for events. */
export interface FailedTag {
  image: string;
  tag: string;
  message: string;
  owners: { namespace?: string; name?: string; uid?: string }[];
}

/** Message when the daemon never reported a tag. */
export const NOT_RESPONDED = 'node has not responded for a long time';
/** Message when a pull ran past its deadline. */
export const DEADLINE_EXCEEDED = 'pulling exceeds the activeDeadlineSeconds';

/**
 * Upstream's NodeImage status pass: a tag with no status of its version `responseTimeoutMs` after
 * createdAt fails ("node has not responded for a long time"); an unfinished tag past createdAt +
 * activeDeadlineSeconds + the same grace fails ("pulling exceeds the activeDeadlineSeconds").
 * Statuses not in the spec are pruned and counters recounted (`waiting` is the daemon's).
 */
export function statusPass(
  ni: NodeImage,
  now: number,
  responseTimeoutMs: number,
): { status: NodeImageStatus; failed: FailedTag[]; nextCheck?: number } {
  const prev = ni.status ?? { desired: 0 };
  const failed: FailedTag[] = [];
  let nextCheck: number | undefined;
  const imageStatuses: NonNullable<NodeImageStatus['imageStatuses']> = {};
  let desired = 0;
  let succeeded = 0;
  let failedCount = 0;
  let pulling = 0;
  for (const [name, image] of Object.entries(ni.spec?.images ?? {})) {
    const tags: ImageTagStatus[] = [];
    for (const tag of image.tags ?? []) {
      desired++;
      const version = tag.version ?? 0;
      let status = prev.imageStatuses?.[name]?.tags?.find(
        (s) => s.tag === tag.tag && (s.version ?? 0) === version,
      );
      const created = Date.parse(tag.createdAt ?? '') || now;
      const done = status?.phase === 'Succeeded' || status?.phase === 'Failed';
      /** Past `at` the tag fails with `message` (Failed status, event); before it, a check is due then. */
      const failAt = (at: number, message: string) => {
        if (at > now) {
          nextCheck = Math.min(nextCheck ?? at, at);
          return;
        }
        const end = { phase: 'Failed' as const, completionTime: kubeTime(now), message };
        status = status ? { ...status, ...end } : { tag: tag.tag, version, ...end };
        failed.push({ image: name, tag: tag.tag, message, owners: tag.ownerReferences ?? [] });
      };
      const deadline = tag.pullPolicy?.activeDeadlineSeconds;
      if (!status) failAt(created + responseTimeoutMs, NOT_RESPONDED);
      else if (!done && deadline !== undefined && deadline !== null)
        failAt(created + deadline * 1000 + responseTimeoutMs, DEADLINE_EXCEEDED);
      const other = prev.imageStatuses?.[name]?.tags?.find((s) => s.tag === tag.tag && s !== status);
      const kept = status ?? other;
      if (kept) tags.push(kept);
      if (status?.phase === 'Succeeded') succeeded++;
      else if (status?.phase === 'Failed') failedCount++;
      else if (status?.phase === 'Pulling') pulling++;
    }
    if (tags.length)
      imageStatuses[name] = { tags: tags.sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0)) };
  }
  const status: NodeImageStatus = {
    ...prev,
    desired,
    succeeded,
    failed: failedCount,
    pulling,
    ...(Object.keys(imageStatuses).length ? { imageStatuses } : {}),
  };
  if (!Object.keys(imageStatuses).length) delete status.imageStatuses;
  return { status, failed, ...(nextCheck !== undefined ? { nextCheck } : {}) };
}
