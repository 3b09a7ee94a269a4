import type { KubeObject } from '../../registry/types.ts';
import { isPodAvailable, isPodReady, untilAvailable } from '../workloads/pod-state.ts';
import { placementOn } from './manage.ts';
import { byCreationAndPhase, isPodUpdated } from './pods.ts';

/**
 * The DaemonSet's status (updateDaemonSetStatus): nodes that should run its pod, those that do,
 * those that run it but should not, and of each node's oldest pod whether it is ready, available
 * for minReadySeconds and updated. `wake` is when a ready pod next becomes available, if any.
 */
export function daemonSetStatus(
  ds: KubeObject,
  nodes: KubeObject[],
  byNode: Map<string, KubeObject[]>,
  hash: string,
  collisionCount: number,
): { status: KubeObject; wake?: number } {
  const minReady: number = ds.spec?.minReadySeconds ?? 0;
  const s = {
    currentNumberScheduled: 0,
    numberMisscheduled: 0,
    desiredNumberScheduled: 0,
    numberReady: 0,
    updatedNumberScheduled: 0,
    numberAvailable: 0,
  };
  let wake: number | undefined;
  for (const node of nodes) {
    const pods = byNode.get(node.metadata?.name) ?? [];
    if (!placementOn(node, ds).shouldRun) {
      if (pods.length) s.numberMisscheduled++;
      continue;
    }
    s.desiredNumberScheduled++;
    if (!pods.length) continue;
    s.currentNumberScheduled++;
    const pod = [...pods].sort(byCreationAndPhase)[0]!;
    if (isPodReady(pod)) {
      s.numberReady++;
      if (isPodAvailable(pod, minReady)) s.numberAvailable++;
      else {
        const ms = untilAvailable(pod, minReady);
        if (ms) wake = Math.min(wake ?? ms, ms);
      }
    }
    if (isPodUpdated(pod, hash)) s.updatedNumberScheduled++;
  }
  const status: KubeObject = {
    ...s,
    numberUnavailable: s.desiredNumberScheduled - s.numberAvailable,
    observedGeneration: ds.metadata?.generation,
    collisionCount,
  };
  if (ds.status?.conditions) status.conditions = ds.status.conditions;
  return { status, wake };
}
