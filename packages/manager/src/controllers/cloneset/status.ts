import type { CloneSet, CloneSetCondition, CloneSetStatus } from '@kruise/api';
import { kubeTime } from '@kruise/kube-compat';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { hasRevision } from '../../workload/revision/pod-revision.ts';
import { isPodAvailable, isPodUpdateReady } from './availability.ts';
import { partitionReplicas } from './partition.ts';

const MAX_INT32 = 2 ** 31 - 1;

/** Whether the Progressing condition is tracked (progressDeadlineSeconds set and not MaxInt32). */
export const hasProgressDeadline = (cs: CloneSet) =>
  cs.spec?.progressDeadlineSeconds !== undefined &&
  cs.spec.progressDeadlineSeconds !== null &&
  cs.spec.progressDeadlineSeconds !== MAX_INT32;

/** The condition of a type. */
export const conditionOf = (status: Partial<CloneSetStatus> | undefined, type: string) =>
  status?.conditions?.find((c) => c.type === type);

/**
 * Sets a condition as upstream's SetCloneSetCondition: nothing when status and reason are the same
 * (so the first message sticks); the transition time kept when only the reason changes. Mutates `status`.
 */
export function setCondition(status: Partial<CloneSetStatus>, condition: CloneSetCondition): void {
  const current = conditionOf(status, condition.type);
  if (current && current.status === condition.status && (current.reason ?? '') === (condition.reason ?? ''))
    return;
  const next = { ...condition };
  if (current && current.status === condition.status) next.lastTransitionTime = current.lastTransitionTime;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== condition.type), next];
}

/** Removes the condition of a type. Mutates `status`. */
export function removeCondition(status: Partial<CloneSetStatus>, type: string): void {
  const left = (status.conditions ?? []).filter((c) => c.type !== type);
  status.conditions = left.length ? left : undefined;
}

/**
 * Counts the active pods into a status that already carries observedGeneration, revisions,
 * collisionCount, labelSelector and conditions: replicas, ready (Running, Ready, InPlaceUpdateReady
 * not False), available (also Ready for minReadySeconds, lifecycle Normal), updated (at the update
 * revision) and their intersections; currentRevision moves to the update revision once all
 * `spec.replicas` pods are updated; expectedUpdatedReplicas = replicas − partition. Mutates `status`.
 */
export function countPods(cs: CloneSet, status: CloneSetStatus, pods: Pod[], now: number): void {
  const minReady = cs.spec?.minReadySeconds ?? 0;
  Object.assign(status, {
    replicas: 0,
    readyReplicas: 0,
    availableReplicas: 0,
    updatedReplicas: 0,
    updatedReadyReplicas: 0,
    updatedAvailableReplicas: 0,
  });
  for (const p of pods) {
    const ready = isPodUpdateReady(p, 0, now);
    const available = isPodAvailable(p, minReady, now);
    const updated = hasRevision(p.metadata?.labels, status.updateRevision ?? '');
    status.replicas++;
    if (ready) status.readyReplicas++;
    if (available) status.availableReplicas++;
    if (updated) {
      status.updatedReplicas++;
      if (ready) status.updatedReadyReplicas++;
      if (available) status.updatedAvailableReplicas = (status.updatedAvailableReplicas ?? 0) + 1;
    }
  }
  const replicas = cs.spec?.replicas ?? 1;
  if (status.updatedReplicas === status.replicas && status.replicas === replicas)
    status.currentRevision = status.updateRevision;
  try {
    status.expectedUpdatedReplicas =
      replicas - partitionReplicas(cs.spec?.updateStrategy?.partition, cs.spec?.replicas);
  } catch {
    // upstream keeps the field unset when the partition cannot be parsed
  }
}

/**
 * The Progressing condition (progressDeadlineSeconds set): available, paused, partition available,
 * deadline exceeded (sticky), or progressing; returns when to look again (ms), or undefined.
 * Mutates `status`.
 */
export function updateProgressing(cs: CloneSet, status: CloneSetStatus, now: number): number | undefined {
  if (!hasProgressDeadline(cs)) {
    removeCondition(status, 'Progressing');
    return undefined;
  }
  const replicas = cs.spec?.replicas ?? 1;
  const at = kubeTime(now);
  const set = (s: 'True' | 'False', reason: string, message: string) =>
    setCondition(status, {
      type: 'Progressing',
      status: s,
      reason,
      message,
      lastUpdateTime: at,
      lastTransitionTime: at,
    });
  if (
    status.currentRevision === status.updateRevision &&
    status.replicas === replicas &&
    status.updatedReplicas === replicas &&
    status.updatedAvailableReplicas === replicas
  ) {
    set('True', 'CloneSetAvailable', 'CloneSet is available');
    return undefined;
  }
  if (cs.spec?.updateStrategy?.paused) {
    set('True', 'CloneSetPaused', 'CloneSet is paused');
    return undefined;
  }
  const expected = status.expectedUpdatedReplicas ?? 0;
  if (expected < replicas && expected <= (status.updatedAvailableReplicas ?? 0)) {
    set('True', 'ProgressPartitionAvailable', 'CloneSet has been paused due to partition ready');
    return undefined;
  }
  const deadlineMs = cs.spec!.progressDeadlineSeconds! * 1000;
  const current = conditionOf(status, 'Progressing');
  if (
    current &&
    (current.reason === 'ProgressDeadlineExceeded' ||
      Date.parse(current.lastUpdateTime ?? '') + deadlineMs < now)
  ) {
    set(
      'False',
      'ProgressDeadlineExceeded',
      `CloneSet revision ${status.updateRevision} has timed out progressing`,
    );
    return undefined;
  }
  set('True', 'CloneSetUpdated', 'CloneSet is progressing');
  const after = Date.parse(conditionOf(status, 'Progressing')?.lastUpdateTime ?? at) + deadlineMs - now;
  // at exactly the deadline (not yet exceeded: upstream compares strictly) look again at once: a
  // zero or negative delay would be dropped by the requeue and the condition would never turn False
  return after < 1000 ? Math.max(after, 1) : after + 1000;
}

/** Whether the new status differs from the stored one in what upstream writes for. */
export function statusChanged(old: Partial<CloneSetStatus> | undefined, next: CloneSetStatus): boolean {
  const o = old ?? {};
  const progressing = (s: Partial<CloneSetStatus>) => conditionOf(s, 'Progressing');
  const po = progressing(o);
  const pn = progressing(next);
  return (
    (next.observedGeneration ?? 0) > (o.observedGeneration ?? 0) ||
    next.replicas !== (o.replicas ?? 0) ||
    next.readyReplicas !== (o.readyReplicas ?? 0) ||
    next.availableReplicas !== (o.availableReplicas ?? 0) ||
    next.updatedReadyReplicas !== (o.updatedReadyReplicas ?? 0) ||
    next.updatedReplicas !== (o.updatedReplicas ?? 0) ||
    (next.updatedAvailableReplicas ?? 0) !== (o.updatedAvailableReplicas ?? 0) ||
    (next.expectedUpdatedReplicas ?? 0) !== (o.expectedUpdatedReplicas ?? 0) ||
    (next.updateRevision ?? '') !== (o.updateRevision ?? '') ||
    (next.currentRevision ?? '') !== (o.currentRevision ?? '') ||
    (next.labelSelector ?? '') !== (o.labelSelector ?? '') ||
    Boolean(po) !== Boolean(pn) ||
    (po !== undefined && pn !== undefined && (po.status !== pn.status || po.reason !== pn.reason))
  );
}
