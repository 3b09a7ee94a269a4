import { nowRFC3339 } from '../../api/context.ts';
import type { KubeObject } from '../../registry/types.ts';

/** A batch/v1 JobCondition. */
export interface JobCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastProbeTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** A new condition stamped now (reason and message left out when empty, as Go's omitempty does). */
export function newCondition(
  type: string,
  status: JobCondition['status'],
  reason = '',
  message = '',
): JobCondition {
  const now = nowRFC3339();
  const c: JobCondition = { type, status, lastProbeTime: now, lastTransitionTime: now };
  if (reason) c.reason = reason;
  if (message) c.message = message;
  return c;
}

/** The condition of `type`, if the Job has one. */
export function findCondition(job: KubeObject, type: string): JobCondition | undefined {
  return (job.status?.conditions ?? []).find((c: JobCondition) => c.type === type);
}

/** Whether the Job has the condition `type` with status True. */
export function hasTrueCondition(job: KubeObject, type: string): boolean {
  return findCondition(job, type)?.status === 'True';
}

/** util.IsJobFinished: Complete or Failed is True. */
export function isJobFinished(job: KubeObject): boolean {
  return hasTrueCondition(job, 'Complete') || hasTrueCondition(job, 'Failed');
}

/**
 * ensureJobConditionStatus: sets the condition of `type` (replacing it when status, reason or
 * message differ); a False condition is never added where none was. Returns whether it changed.
 */
export function ensureCondition(
  conditions: JobCondition[],
  type: string,
  status: JobCondition['status'],
  reason: string,
  message: string,
): boolean {
  const i = conditions.findIndex((c) => c.type === type);
  if (i >= 0) {
    const c = conditions[i]!;
    if (c.status === status && (c.reason ?? '') === reason && (c.message ?? '') === message) return false;
    conditions[i] = newCondition(type, status, reason, message);
    return true;
  }
  if (status === 'False') return false;
  conditions.push(newCondition(type, status, reason, message));
  return true;
}
