import type { DaemonSet } from '@kruise/api';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { isPodAvailable, isPodReady } from '../../workload/pod-state.ts';
import type { RequeueAfter } from '../cloneset/context.ts';
import type { DaemonSetDeps } from './context.ts';
import {
  allowSurge,
  byCreationAndPhase,
  isPreDeleting,
  nodesNeedingPods,
  partitionOf,
  placementOn,
  unscheduledPodsWithoutNode,
  updatedPodsOnNode,
} from './placement.ts';

/** What the manage pass decided: pods to delete and nodes to create a pod on. */
export interface ManagePlan {
  toDelete: Pod[];
  nodesNeeding: string[];
}

/** How long until a Ready pod has been Ready for minReadySeconds (podAvailableWaitingTime). */
function availableInMs(pod: Pod, minReadySeconds: number, now: number): number {
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  const since = ready?.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : Number.NaN;
  if (Number.isNaN(since)) return minReadySeconds * 1000;
  return minReadySeconds * 1000 - (now - since);
}

/**
 * The pods to create and delete on one node (podsShouldBeOnNode): a node that should run the pod
 * and has none gets one; a failed pod is deleted (with a per-node backoff, and the FailedDaemonPod
 * event); a pod held PreparingDelete goes once released; without surge only the oldest running pod
 * stays; with surge an old and a new pod stay side by side until the new one is available; a node
 * that may not keep the pod loses all of it.
 */
export function podsShouldBeOnNode(
  d: DaemonSetDeps,
  node: Node,
  pods: Pod[] | undefined,
  ds: DaemonSet,
  hash: string,
  requeue: RequeueAfter,
): ManagePlan {
  const name = node.metadata?.name ?? '';
  const { shouldRun, shouldContinueRunning } = placementOn(node, ds);
  const plan: ManagePlan = { toDelete: [], nodesNeeding: [] };
  if (shouldRun && !pods) {
    plan.nodesNeeding.push(name);
    return plan;
  }
  if (!shouldContinueRunning) {
    for (const pod of pods ?? []) if (!pod.metadata?.deletionTimestamp) plan.toDelete.push(pod);
    return plan;
  }
  const now = d.now();
  const running: Pod[] = [];
  for (const pod of pods ?? []) {
    if (pod.metadata?.deletionTimestamp) continue;
    if (pod.status?.phase === 'Failed') {
      // kubelet may keep rejecting the pod: back off before deleting it again
      const key = `${ds.metadata?.uid}/${ds.status?.observedGeneration ?? 0}/${name}`;
      if (d.failedPodsBackoff.inBackoffSinceUpdate(key, now)) {
        requeue.push(d.failedPodsBackoff.get(key));
        continue;
      }
      d.failedPodsBackoff.next(key, now);
      d.event(
        ds,
        'Warning',
        'FailedDaemonPod',
        `Found failed daemon pod ${pod.metadata?.namespace}/${pod.metadata?.name} on node ${name}, will try to kill it`,
      );
      plan.toDelete.push(pod);
    } else if (isPreDeleting(pod)) plan.toDelete.push(pod);
    else running.push(pod);
  }
  running.sort(byCreationAndPhase);
  if (!allowSurge(ds)) {
    plan.toDelete.push(...running.slice(1));
    return plan;
  }
  if (running.length <= 1) {
    if (!running.length && shouldRun) plan.nodesNeeding.push(name);
    return plan;
  }
  // Surging: an old and a new pod may stay together while the new one is not yet available.
  let oldestNew: Pod | undefined;
  let oldestOld: Pod | undefined;
  for (const pod of running) {
    const isNew = pod.metadata?.labels?.['controller-revision-hash'] === hash;
    if (isNew && !oldestNew) oldestNew = pod;
    else if (!isNew && !oldestOld) oldestOld = pod;
    else plan.toDelete.push(pod);
  }
  if (oldestNew && oldestOld) {
    const minReady = ds.spec?.minReadySeconds ?? 0;
    if (!isPodReady(oldestOld)) plan.toDelete.push(oldestOld);
    else if (isPodAvailable(oldestNew, minReady, now)) plan.toDelete.push(oldestOld);
    else if (isPodReady(oldestNew) && minReady > 0) requeue.push(availableInMs(oldestNew, minReady, now));
  }
  return plan;
}

/**
 * The manage pass (manage): every node's plan, plus the pending pods whose node is gone; on a first
 * rollout with a partition and `scaleStrategy.partitionedScaling`, only `desired − new − partition`
 * nodes get pods.
 */
export function managePlan(
  d: DaemonSetDeps,
  ds: DaemonSet,
  nodes: Node[],
  byNode: Map<string, Pod[]>,
  hash: string,
  requeue: RequeueAfter,
): ManagePlan {
  const plan: ManagePlan = { toDelete: [], nodesNeeding: [] };
  let desired = 0;
  let newPods = 0;
  for (const node of nodes) {
    const name = node.metadata?.name ?? '';
    const onNode = podsShouldBeOnNode(d, node, byNode.get(name), ds, hash, requeue);
    plan.toDelete.push(...onNode.toDelete);
    plan.nodesNeeding.push(...onNode.nodesNeeding);
    if (placementOn(node, ds).shouldRun) desired++;
    if (updatedPodsOnNode(ds, byNode.get(name), hash)?.newPod) newPods++;
  }
  plan.toDelete.push(...unscheduledPodsWithoutNode(nodes, byNode));
  const strategy = ds.spec?.updateStrategy;
  if (strategy?.type === 'RollingUpdate' && strategy.rollingUpdate?.partition !== undefined) {
    const partition = partitionOf(ds, ds.status?.desiredNumberScheduled ?? 0);
    if (partition !== 0)
      plan.nodesNeeding = nodesNeedingPods(
        newPods,
        desired,
        partition,
        ds.spec?.scaleStrategy?.partitionedScaling === true,
        plan.nodesNeeding,
      );
  }
  return plan;
}
