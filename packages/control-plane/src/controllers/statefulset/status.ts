import type { KubeObject } from '../../registry/types.ts';
import { isPodAvailable, isRunningAndReady, isTerminating } from '../workloads/pod-state.ts';
import { podRevision } from './pods.ts';
import type { SetRevisions } from './revisions.ts';

/**
 * The set's status from its pods (computeReplicaStatus and completeRollingUpdate): replicas
 * created, ready, available for minReadySeconds, at the current and at the update revision; once
 * every replica of a rolling update is updated and ready, the update revision becomes the current.
 */
export function statefulSetStatus(set: KubeObject, pods: KubeObject[], revisions: SetRevisions): KubeObject {
  const minReady: number = set.spec?.minReadySeconds ?? 0;
  const current = revisions.current.metadata?.name;
  const update = revisions.update.metadata?.name;
  const counts = {
    replicas: 0,
    readyReplicas: 0,
    availableReplicas: 0,
    currentReplicas: 0,
    updatedReplicas: 0,
  };
  for (const pod of pods) {
    counts.replicas++;
    if (isRunningAndReady(pod)) {
      counts.readyReplicas++;
      if (isPodAvailable(pod, minReady)) counts.availableReplicas++;
    }
    if (isTerminating(pod)) continue;
    if (podRevision(pod) === current) counts.currentReplicas++;
    if (podRevision(pod) === update) counts.updatedReplicas++;
  }
  let currentRevision = current;
  if (
    set.spec?.updateStrategy?.type === 'RollingUpdate' &&
    counts.updatedReplicas === counts.replicas &&
    counts.readyReplicas === counts.replicas
  ) {
    counts.currentReplicas = counts.updatedReplicas;
    currentRevision = update;
  }
  const status: KubeObject = {
    observedGeneration: set.metadata?.generation,
    ...counts,
    currentRevision,
    updateRevision: update,
    collisionCount: revisions.collisionCount,
  };
  if (set.status?.conditions) status.conditions = set.status.conditions;
  return status;
}
