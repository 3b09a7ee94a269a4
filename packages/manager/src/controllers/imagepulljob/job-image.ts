import { type ImagePullJob, normalizeImageToNameTag } from '@kruise/api';

/** The NodeImage key and tag an ImagePullJob pulls (`nginx`, `1.25`), or undefined for a bad image. */
export function jobImage(job: ImagePullJob): { name: string; tag: string } | undefined {
  try {
    return normalizeImageToNameTag(job.spec?.image ?? '');
  } catch {
    return undefined;
  }
}

/** `name:tag`, the index value that ties jobs to NodeImage tags. */
export const imageTagKey = (name: string, tag: string) => `${name}:${tag}`;

/** Whether a job still has work: not deleting, not completed. */
export const isActiveJob = (job: ImagePullJob) =>
  !job.metadata?.deletionTimestamp && !job.status?.completionTime;
