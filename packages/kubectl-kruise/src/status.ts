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

/** kubectl's refusal to follow a StatefulSet that is not updated by rolling update. */
export const ONLY_ROLLING_UPDATE = 'rollout status is only available for RollingUpdate strategy type';

/**
 * kruise-tools' Advanced StatefulSet status viewer, with its messages (its partition line is
 * worded `finish:N … has been updated`), made to wait for what it announces: an `OnDelete` set is
 * refused as kubectl refuses a built-in one (upstream would report it complete); the latest
 * generation must be observed first; then `replicas − partition` pods must be updated (upstream
 * skips this without a partition, so right after `set image` it read the old pods as complete),
 * then every pod ready.
 * @throws Error {@link ONLY_ROLLING_UPDATE} for an `OnDelete` set.
 */
export function advancedStatefulSetStatus(set: KubeObject): RolloutStatus {
  const spec = set.spec ?? {};
  const status = set.status ?? {};
  if ((spec.updateStrategy?.type ?? 'RollingUpdate') !== 'RollingUpdate')
    throw new Error(ONLY_ROLLING_UPDATE);
  if (!status.observedGeneration || Number(set.metadata?.generation ?? 0) > Number(status.observedGeneration))
    return { message: 'Waiting for Advanced StatefulSet spec update to be observed...', done: false };
  const replicas = Number(spec.replicas ?? 1);
  const partition = Number(spec.updateStrategy?.rollingUpdate?.partition ?? 0);
  const wanted = Math.max(replicas - partition, 0);
  const updated = Number(status.updatedReplicas ?? 0);
  if (updated < wanted)
    return {
      message: `Waiting for partitioned roll out to finish:${updated} out of ${wanted} new pods has been updated...`,
      done: false,
    };
  const ready = Number(status.readyReplicas ?? 0);
  if (ready < replicas)
    return { message: `Waiting for ${replicas - ready} pods to be ready...`, done: false };
  return {
    message: `Advanced StatefulSet rolling update complete ${Number(status.availableReplicas ?? 0)} pods at revision ${status.updateRevision ?? ''}...`,
    done: true,
  };
}

/**
 * `rollout status` of an Advanced DaemonSet, in kubectl's words for a DaemonSet (kruise-tools has no
 * status viewer for it): every desired node updated, then every one available.
 */
export function advancedDaemonSetStatus(ds: KubeObject): RolloutStatus {
  const spec = ds.spec ?? {};
  const status = ds.status ?? {};
  const name = ds.metadata?.name ?? '';
  if ((spec.updateStrategy?.type ?? 'RollingUpdate') !== 'RollingUpdate')
    throw new Error(ONLY_ROLLING_UPDATE);
  if (Number(ds.metadata?.generation ?? 0) > Number(status.observedGeneration ?? 0))
    return { message: 'Waiting for daemon set spec update to be observed...', done: false };
  const desired = Number(status.desiredNumberScheduled ?? 0);
  const updated = Number(status.updatedNumberScheduled ?? 0);
  if (updated < desired)
    return {
      message: `Waiting for daemon set "${name}" rollout to finish: ${updated} out of ${desired} new pods have been updated...`,
      done: false,
    };
  const available = Number(status.numberAvailable ?? 0);
  if (available < desired)
    return {
      message: `Waiting for daemon set "${name}" rollout to finish: ${available} of ${desired} updated pods are available...`,
      done: false,
    };
  return { message: `daemon set "${name}" successfully rolled out`, done: true };
}
