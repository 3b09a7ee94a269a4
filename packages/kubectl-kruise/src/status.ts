import { type IntOrString, intPercentValue } from '@kruise/kube-compat/intstr';
import type { KubeObject } from '@kruise/runtime/kube/client';

/** One reading of a rollout: the line to print and whether the rollout is done. */
export interface RolloutStatus {
  message: string;
  done: boolean;
}

/** kruise-tools' CalculatePartitionReplicas: a partition (count or percentage, rounded up) capped at replicas. */
export function partitionReplicas(partition: IntOrString | undefined, replicas: number): number {
  return partition === undefined || partition === null
    ? 0
    : Math.min(intPercentValue(partition, replicas, true), replicas);
}

/**
 * kruise-tools' CloneSet status viewer, with its messages, made to wait for what it announces:
 * every strategy first waits for the controller to observe the latest generation (upstream checks
 * that for ReCreate only, so right after `set image` an in-place CloneSet read as complete), then
 * for `replicas − partition` updated pods (upstream skips this when no partition is set, and for
 * ReCreate altogether), then for them to be ready (in place: `updatedReadyReplicas`; ReCreate:
 * `readyReplicas`, as upstream).
 */
export function cloneSetStatus(cs: KubeObject): RolloutStatus {
  const spec = cs.spec ?? {};
  const status = cs.status ?? {};
  const replicas = Number(spec.replicas ?? 1);
  if (!status.observedGeneration || Number(cs.metadata?.generation ?? 0) > Number(status.observedGeneration))
    return { message: 'Waiting for CloneSet spec update to be observed...', done: false };
  const type = spec.updateStrategy?.type ?? 'ReCreate';
  const updated = Number(status.updatedReplicas ?? 0);
  const wanted = replicas - partitionReplicas(spec.updateStrategy?.partition, replicas);
  if (updated < wanted)
    return {
      message: `Waiting for partitioned roll out to finish: ${updated} out of ${wanted} new pods have been updated...`,
      done: false,
    };
  const updatedReady = Number(status.updatedReadyReplicas ?? 0);
  if (type === 'InPlaceOnly' || type === 'InPlaceIfPossible') {
    if (updatedReady < wanted)
      return { message: `Waiting for ${wanted - updatedReady} pods to be ready...`, done: false };
    return { message: `partitioned roll out complete: ${updated} new pods have been updated...`, done: true };
  }
  const ready = Number(status.readyReplicas ?? 0);
  if (ready < replicas)
    return { message: `Waiting for ${replicas - ready} pods to be ready...`, done: false };
  return {
    message: `CloneSet rolling update complete ${Number(status.availableReplicas ?? 0)} pods at revision ${status.updateRevision ?? ''}...`,
    done: true,
  };
}
