import type { ImageListPullJob, ImageListPullJobStatus, ImagePullJob } from '@kruise/api';

import { kubeTime } from '@kruise/kube-compat';

/** Upstream's roll-up over the children that have started (those with a startTime). */
export function listJobStatus(
  list: ImageListPullJob,
  children: ImagePullJob[],
  now: Date,
): ImageListPullJobStatus {
  const prev = list.status ?? { desired: 0 };
  const desired = list.spec?.images?.length ?? 0;
  let active = 0;
  let completed = 0;
  let succeeded = 0;
  const failedImageStatuses: NonNullable<ImageListPullJobStatus['failedImageStatuses']> = [];
  for (const child of children) {
    const s = child.status;
    if (!s?.startTime) continue;
    if ((s.active ?? 0) > 0) active++;
    if ((s.succeeded ?? 0) + (s.failed ?? 0) === s.desired) completed++;
    if ((s.succeeded ?? 0) === s.desired) succeeded++;
    if ((s.failed ?? 0) > 0)
      failedImageStatuses.push({
        imagePullJob: child.metadata?.name,
        name: child.spec?.image,
        message: s.message,
      });
  }
  failedImageStatuses.sort((a, b) => ((a.name ?? '') < (b.name ?? '') ? -1 : 1));
  const status: ImageListPullJobStatus = {
    ...prev,
    startTime: prev.startTime ?? kubeTime(now),
    desired,
    active,
    completed,
    succeeded,
  };
  if (failedImageStatuses.length) status.failedImageStatuses = failedImageStatuses;
  else delete status.failedImageStatuses;
  if (
    (list.spec?.completionPolicy?.type ?? 'Always') !== 'Never' &&
    completed === desired &&
    !status.completionTime
  )
    status.completionTime = kubeTime(now);
  return status;
}
