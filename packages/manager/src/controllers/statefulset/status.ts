import {
  KruiseResources,
  type StatefulSet,
  type StatefulSetCondition,
  type StatefulSetStatus,
} from '@kruise/api';
import { kubeTime } from '@kruise/kube-compat';
import { type KubeClient, type KubeObject, retryOnConflict } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { defaultRevisionAdapter } from '../../workload/revision/pod-revision.ts';
import { isCreated, isRunningAndReady, isTerminating, runningAndAvailable } from './pod-health.ts';

/**
 * Counts replicas into `status` (upstream's updateStatus over computeReplicaStatus): created,
 * ready, available (ready for minReadySeconds), current and updated (not terminating), and the
 * updated ones ready and available.
 */
export function countReplicas(
  status: StatefulSetStatus,
  pods: (Pod | undefined)[],
  minReadySeconds: number,
  revisions: { current: string; update: string },
  now: number,
): void {
  status.replicas = 0;
  status.readyReplicas = 0;
  status.availableReplicas = 0;
  status.currentReplicas = 0;
  status.updatedReplicas = 0;
  status.updatedReadyReplicas = 0;
  status.updatedAvailableReplicas = 0;
  for (const pod of pods) {
    if (!pod) continue;
    if (isCreated(pod)) status.replicas++;
    const atUpdate = defaultRevisionAdapter.matches(pod.metadata?.labels, revisions.update);
    if (isRunningAndReady(pod)) {
      status.readyReplicas++;
      const available = runningAndAvailable(pod, minReadySeconds, now).available;
      if (atUpdate) {
        status.updatedReadyReplicas++;
        if (available) status.updatedAvailableReplicas++;
      }
      if (available) status.availableReplicas++;
    }
    if (isCreated(pod) && !isTerminating(pod)) {
      if (defaultRevisionAdapter.matches(pod.metadata?.labels, revisions.current)) status.currentReplicas++;
      if (atUpdate) status.updatedReplicas++;
    }
  }
}

/**
 * Sets a condition (upstream's SetStatefulsetCondition): a condition of the same type, status and
 * reason is left alone; the transition time is kept while the status does not change.
 */
export function setCondition(status: StatefulSetStatus, condition: StatefulSetCondition): void {
  const current = status.conditions?.find((c) => c.type === condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return;
  const next = { ...condition };
  if (current && current.status === condition.status) next.lastTransitionTime = current.lastTransitionTime;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== condition.type), next];
}

/** Removes the condition of a type. */
export function removeCondition(status: StatefulSetStatus, type: string): void {
  if (!status.conditions?.some((c) => c.type === type)) return;
  status.conditions = status.conditions.filter((c) => c.type !== type);
}

/** A True condition stamped now. */
export const trueCondition = (
  type: string,
  message: string,
  now: number,
  reason = '',
): StatefulSetCondition => ({
  type,
  status: 'True',
  lastTransitionTime: kubeTime(now),
  ...(reason ? { reason } : {}),
  message,
});

/**
 * Completes a rolling update when every replica is updated and ready (upstream's
 * completeRollingUpdate): the update revision becomes the current one.
 */
export function completeRollingUpdate(set: StatefulSet, status: StatefulSetStatus): void {
  if (
    (set.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate' &&
    status.updatedReplicas === status.replicas &&
    status.readyReplicas === status.replicas
  ) {
    status.currentReplicas = status.updatedReplicas;
    status.currentRevision = status.updateRevision;
  }
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Whether the new status differs from the stored one in anything reported. */
export function statusChanged(old: StatefulSetStatus | undefined, next: StatefulSetStatus): boolean {
  const o = old ?? ({} as StatefulSetStatus);
  return (
    (next.observedGeneration ?? 0) > (o.observedGeneration ?? 0) ||
    (
      [
        'replicas',
        'readyReplicas',
        'availableReplicas',
        'currentReplicas',
        'updatedReplicas',
        'updatedReadyReplicas',
        'updatedAvailableReplicas',
        'currentRevision',
        'updateRevision',
        'labelSelector',
        'collisionCount',
      ] as const
    ).some((k) => (o[k] ?? 0) !== (next[k] ?? 0)) ||
    !same(o.volumeClaims, next.volumeClaims) ||
    !same(o.conditions, next.conditions)
  );
}

/**
 * Writes the status through `/status` when it changed (over the cached set; read again only after a
 * conflict), after completing a finished rolling update.
 */
export async function writeStatus(
  client: KubeClient,
  set: StatefulSet,
  status: StatefulSetStatus,
): Promise<void> {
  completeRollingUpdate(set, status);
  if (!statusChanged(set.status, status)) return;
  let latest = set as StatefulSet & KubeObject;
  let retry = false;
  await retryOnConflict(async () => {
    if (retry)
      latest = (await client.get(
        KruiseResources.StatefulSet,
        set.metadata?.namespace,
        set.metadata?.name ?? '',
      )) as StatefulSet & KubeObject;
    retry = true;
    await client.updateStatus(KruiseResources.StatefulSet, { ...latest, status });
  });
}
