import { type DaemonSet, type DaemonSetStatus, KruiseResources } from '@kruise/api';
import { type KubeClient, type KubeObject, retryOnConflict } from '@kruise/runtime';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { hasInPlaceUpdateGate, inPlaceUpdateCondition } from '../../workload/inplaceupdate/readiness.ts';
import { isPodAvailable, isPodReady } from '../../workload/pod-state.ts';
import { templateGeneration } from './context.ts';
import { byCreationAndPhase, isPodUpdated, placementOn } from './placement.ts';

/** A daemon pod counts as available once available and, with the in-place gate, not mid-update (isDaemonPodAvailable). */
function isDaemonPodAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  if (!isPodAvailable(pod, minReadySeconds, now)) return false;
  if (!hasInPlaceUpdateGate(pod)) return true;
  const c = inPlaceUpdateCondition(pod);
  return !c || c.status === 'True';
}

/**
 * The DaemonSet's counts (updateDaemonSetStatus), node by node: desired where the pod should run,
 * current where it has one (the oldest decides ready, available and updated), misscheduled where
 * it has one but should not; unavailable = desired − available.
 */
export function daemonSetCounts(
  ds: DaemonSet,
  nodes: Node[],
  byNode: Map<string, Pod[]>,
  hash: string,
  now: number,
): Omit<DaemonSetStatus, 'observedGeneration' | 'updateRevision' | 'collisionCount' | 'conditions'> {
  const counts = {
    desiredNumberScheduled: 0,
    currentNumberScheduled: 0,
    numberMisscheduled: 0,
    numberReady: 0,
    updatedNumberScheduled: 0,
    numberAvailable: 0,
    numberUnavailable: 0,
  };
  const generation = templateGeneration(ds);
  const minReady = ds.spec?.minReadySeconds ?? 0;
  for (const node of nodes) {
    const pods = byNode.get(node.metadata?.name ?? '') ?? [];
    if (!placementOn(node, ds).shouldRun) {
      if (pods.length) counts.numberMisscheduled++;
      continue;
    }
    counts.desiredNumberScheduled++;
    if (!pods.length) continue;
    counts.currentNumberScheduled++;
    const pod = [...pods].sort(byCreationAndPhase)[0]!;
    if (isPodReady(pod)) {
      counts.numberReady++;
      if (isDaemonPodAvailable(pod, minReady, now)) counts.numberAvailable++;
    }
    if (isPodUpdated(pod, hash, generation)) counts.updatedNumberScheduled++;
  }
  counts.numberUnavailable = counts.desiredNumberScheduled - counts.numberAvailable;
  return counts;
}

const STATUS_FIELDS = [
  'desiredNumberScheduled',
  'currentNumberScheduled',
  'numberMisscheduled',
  'numberReady',
  'updatedNumberScheduled',
  'numberAvailable',
  'numberUnavailable',
  'updateRevision',
  'collisionCount',
] as const;

/**
 * Writes the status when a count, the revision or the collision count changed, or (with
 * `observed`) the generation was not yet observed (storeDaemonSetStatus, retried on conflicts).
 */
export async function storeStatus(
  client: KubeClient,
  ds: DaemonSet,
  status: DaemonSetStatus,
  observed: boolean,
): Promise<void> {
  const old = ds.status ?? ({} as DaemonSetStatus);
  const generation = ds.metadata?.generation ?? 0;
  const same =
    STATUS_FIELDS.every((f) => (old[f] ?? 0) === (status[f] ?? 0)) &&
    (old.observedGeneration ?? 0) >= generation;
  if (same) return;
  let latest = ds as DaemonSet & KubeObject;
  let retry = false;
  await retryOnConflict(async () => {
    if (retry)
      latest = (await client.get(
        KruiseResources.DaemonSet,
        ds.metadata?.namespace,
        ds.metadata?.name ?? '',
      )) as DaemonSet & KubeObject;
    retry = true;
    const next: DaemonSetStatus = {
      ...latest.status,
      ...status,
      observedGeneration: observed ? generation : latest.status?.observedGeneration,
    };
    await client.updateStatus(KruiseResources.DaemonSet, { ...latest, status: next });
  });
}
