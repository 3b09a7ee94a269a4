import type { ImageTagStatus, NodeImageStatus } from '@kruise/api';

/** One tag the spec asks for, with what its worker (or the kept record) reports, if anything. */
export interface DesiredTag {
  image: string;
  tag: string;
  status: ImageTagStatus | undefined;
}

/**
 * A NodeImage's status from the tags its spec asks for: `desired` counts every tag, the phase
 * counters count the tags that report, and `imageStatuses` lists each image's reported tags in
 * tag order (absent when nothing reports). Pure: the same snapshot gives the same status.
 */
export function buildNodeImageStatus(desiredTags: readonly DesiredTag[]): NodeImageStatus {
  const imageStatuses: NonNullable<NodeImageStatus['imageStatuses']> = {};
  const counts = { succeeded: 0, failed: 0, pulling: 0, waiting: 0 };
  for (const { image, status } of desiredTags) {
    if (!status) continue;
    imageStatuses[image] ??= { tags: [] };
    imageStatuses[image].tags.push(status);
    if (status.phase === 'Succeeded') counts.succeeded++;
    else if (status.phase === 'Failed') counts.failed++;
    else if (status.phase === 'Pulling') counts.pulling++;
    else counts.waiting++;
  }
  for (const s of Object.values(imageStatuses))
    s.tags.sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
  return {
    desired: desiredTags.length,
    ...counts,
    ...(Object.keys(imageStatuses).length ? { imageStatuses } : {}),
  };
}
