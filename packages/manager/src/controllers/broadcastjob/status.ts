import type { BroadcastJob, BroadcastJobConditionType, BroadcastJobStatus } from '@kruise/api';
import { kubeTime } from '@kruise/kube-compat';
import { stableJson } from '../imagelistpulljob/hash.ts';

/**
 * Whether the job is finished (upstream's IsJobFinished): never with completion policy Never;
 * otherwise once it has a Complete or Failed condition that is True.
 */
export function isJobFinished(job: BroadcastJob): boolean {
  if (job.spec?.completionPolicy?.type === 'Never') return false;
  return (job.status?.conditions ?? []).some(
    (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
  );
}

/**
 * Milliseconds left before the job's activeDeadlineSeconds passes (counted from status.startTime);
 * undefined without a deadline or a start time. At or below 0 the deadline has passed.
 */
export function deadlineLeftMs(
  job: BroadcastJob,
  status: BroadcastJobStatus,
  now: number,
): number | undefined {
  const seconds = job.spec?.completionPolicy?.activeDeadlineSeconds;
  if (seconds === undefined || seconds === null || !status.startTime) return undefined;
  const start = Date.parse(status.startTime);
  if (Number.isNaN(start)) return undefined;
  return start + seconds * 1000 - now;
}

/**
 * Finishes the job (upstream's finishJob): appends the condition of `type` (True, reason the type,
 * `message`), sets completionTime; returns when to look again for its TTL, if it has one.
 */
export function finishJob(
  job: BroadcastJob,
  status: BroadcastJobStatus,
  type: BroadcastJobConditionType,
  message: string,
  now: number,
): number | undefined {
  const at = kubeTime(now);
  status.conditions = [
    ...(status.conditions ?? []),
    { type, status: 'True', lastProbeTime: at, lastTransitionTime: at, reason: type, message },
  ];
  status.completionTime = at;
  const ttl = job.spec?.completionPolicy?.ttlSecondsAfterFinished;
  // a second past the TTL, as upstream, so the TTL has passed when the job is looked at again
  return ttl === undefined || ttl === null ? undefined : (ttl + 1) * 1000;
}

/** Whether anything the job's status shows changed (field order aside). */
export const statusChanged = (a: BroadcastJobStatus | undefined, b: BroadcastJobStatus): boolean =>
  stableJson(a ?? {}) !== stableJson(b);
