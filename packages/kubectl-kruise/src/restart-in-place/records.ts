/**
 * What `rollout restart --in-place` records on the objects it touches, so a user can see why pods
 * restarted and a re-run can tell which pods are done (ADR 0038).
 */

/** On the workload: the current (or last) in-place restart, as JSON {@link RestartRecord}. */
export const WORKLOAD_RESTART_ANNOTATION = 'apps.kruise.io/in-place-restart';
/** On each pod, once its containers restarted and it is Ready again: JSON {@link PodRestartRecord}. */
export const POD_RESTARTED_ANNOTATION = 'apps.kruise.io/in-place-restarted';
/** On each ContainerRecreateRequest the restart creates: the restart id. */
export const RESTART_ID_LABEL = 'apps.kruise.io/in-place-restart-id';

/** One in-place restart of a workload. */
export interface RestartRecord {
  id: string;
  reason: string;
  startedAt: string;
  /** Set once every pod is done; a record without it is resumed by the next run. */
  completedAt?: string;
}

/** One pod's part of a restart. */
export interface PodRestartRecord {
  id: string;
  reason: string;
  restartedAt: string;
  containerRecreateRequest: string;
}

/** Parses a JSON annotation; undefined when absent or not an object with a string `id`. */
export function readRecord<T extends { id: string }>(
  annotations: Record<string, string> | undefined,
  key: string,
): T | undefined {
  const text = annotations?.[key];
  if (!text) return undefined;
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && typeof v.id === 'string' ? (v as T) : undefined;
  } catch {
    return undefined;
  }
}

/** A new restart id: the UTC start time to the second, `20261124-155300`, valid in object names. */
export function newRestartId(now: Date): string {
  return now
    .toISOString()
    .replace(/\.\d+Z$/, '')
    .replace(/[-:]/g, '')
    .replace('T', '-');
}

/** The request's name for one pod of one restart (a DNS subdomain of at most 253 characters). */
export function crrName(podName: string, id: string): string {
  const suffix = `-restart-${id}`;
  return `${podName.slice(0, 253 - suffix.length)}${suffix}`;
}
