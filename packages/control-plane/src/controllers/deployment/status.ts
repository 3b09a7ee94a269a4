import type { KubeObject } from '../../registry/types.ts';
import { type DeploymentCondition, newCondition, Reasons, setCondition } from './conditions.ts';
import {
  actualReplicaCount,
  availableReplicaCount,
  maxUnavailable,
  readyReplicaCount,
  replicaCount,
  specReplicas,
} from './replicas.ts';

/**
 * calculateStatus: replicas, updatedReplicas (the new ReplicaSet's), readyReplicas,
 * availableReplicas, unavailableReplicas, observedGeneration and collisionCount from the
 * ReplicaSets, the conditions carried over, and Available set from minimum availability.
 */
export function deploymentStatus(
  d: KubeObject,
  all: (KubeObject | undefined)[],
  newRS: KubeObject | undefined,
) {
  const available = availableReplicaCount(all);
  const status: Record<string, any> = {
    observedGeneration: d.metadata?.generation,
    replicas: actualReplicaCount(all),
    updatedReplicas: actualReplicaCount([newRS]),
    readyReplicas: readyReplicaCount(all),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, replicaCount(all) - available),
  };
  if (d.status?.collisionCount !== undefined) status.collisionCount = d.status.collisionCount;
  if (d.status?.conditions?.length) status.conditions = structuredClone(d.status.conditions);
  if (available >= specReplicas(d) - maxUnavailable(d))
    setCondition(
      status,
      newCondition(
        'Available',
        'True',
        Reasons.MinimumReplicasAvailable,
        'Deployment has minimum availability.',
      ),
    );
  else
    setCondition(
      status,
      newCondition(
        'Available',
        'False',
        Reasons.MinimumReplicasUnavailable,
        'Deployment does not have minimum availability.',
      ),
    );
  return status;
}

/** getReplicaFailures: the new ReplicaSet's ReplicaFailure condition, else an old one's, as a Deployment condition. */
export function replicaFailure(all: (KubeObject | undefined)[], newRS: KubeObject | undefined) {
  const failureOf = (rs: KubeObject | undefined): DeploymentCondition | undefined => {
    const c = (rs?.status?.conditions ?? []).find((x: any) => x?.type === 'ReplicaFailure');
    return c
      ? {
          type: 'ReplicaFailure',
          status: c.status,
          lastUpdateTime: c.lastTransitionTime,
          lastTransitionTime: c.lastTransitionTime,
          reason: c.reason,
          message: c.message,
        }
      : undefined;
  };
  return failureOf(newRS) ?? all.map(failureOf).find((c) => c !== undefined);
}
