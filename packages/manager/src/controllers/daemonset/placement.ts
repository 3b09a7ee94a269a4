import type { DaemonSet } from '@kruise/api';
import {
  type DaemonPlacement,
  intPercentValue,
  nodeShouldRunDaemonPod,
  targetNodeName,
} from '@kruise/kube-compat';
import { rollingCount } from '@kruise/kube-compat/daemon-rolling';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { lifecycleState } from '../../workload/lifecycle/state.ts';
import { DAEMONSET_HASH_LABEL, TEMPLATE_GENERATION_LABEL, templateGeneration } from './context.ts';

/**
 * Where an Advanced DaemonSet's pods are and should be: per node, as the native DaemonSet
 * controller decides it (placement itself is kube-compat's nodeShouldRunDaemonPod).
 */

/** Whether the DaemonSet's pod belongs on the node (its template, with the daemon tolerations). */
export const placementOn = (node: Node, ds: DaemonSet): DaemonPlacement =>
  nodeShouldRunDaemonPod(node as never, (ds.spec?.template?.spec ?? {}) as never);

/**
 * The DaemonSet's pods by the node each is for (getNodesToDaemonPods); a pod that names no node is
 * left out (and logged by the caller through `unplaced`).
 */
export function podsByNode(pods: Pod[], unplaced?: (pod: Pod, reason: string) => void): Map<string, Pod[]> {
  const out = new Map<string, Pod[]>();
  for (const pod of pods) {
    let node: string;
    try {
      node = targetNodeName(pod as never);
    } catch (err) {
      unplaced?.(pod, (err as Error).message);
      continue;
    }
    const list = out.get(node);
    if (list) list.push(pod);
    else out.set(node, [pod]);
  }
  return out;
}

/** Whether a pod runs the revision `hash` (IsPodUpdated: the hash label, or the deprecated template generation). */
export function isPodUpdated(pod: Pod, hash: string, generation: string | undefined): boolean {
  const labels = pod.metadata?.labels ?? {};
  return (
    (hash !== '' && labels[DAEMONSET_HASH_LABEL] === hash) ||
    (generation !== undefined && labels[TEMPLATE_GENERATION_LABEL] === generation)
  );
}

/** A pod being held before deletion by the preDelete hook. */
export const isPreDeleting = (pod: Pod | undefined): boolean =>
  pod !== undefined && lifecycleState(pod) === 'PreparingDelete';

/** No pod, or one held before deletion. */
export const nilOrPreDeleting = (pod: Pod | undefined): boolean => pod === undefined || isPreDeleting(pod);

/**
 * The updated and the old pod on a node (findUpdatedPodsOnNode), pods being deleted left out;
 * undefined when there is more than one of either (the manage pass prunes the excess first).
 */
export function updatedPodsOnNode(
  ds: DaemonSet,
  pods: Pod[] | undefined,
  hash: string,
): { newPod?: Pod; oldPod?: Pod } | undefined {
  const generation = templateGeneration(ds);
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const pod of pods ?? []) {
    if (pod.metadata?.deletionTimestamp) continue;
    if (isPodUpdated(pod, hash, generation)) {
      if (newPod) return undefined;
      newPod = pod;
    } else {
      if (oldPod) return undefined;
      oldPod = pod;
    }
  }
  return { newPod, oldPod };
}

const created = (p: Pod) => p.metadata?.creationTimestamp ?? '';

/** Bound pods first, then by creation time, then by name (podByCreationTimestampAndPhase). */
export function byCreationAndPhase(a: Pod, b: Pod): number {
  const boundA = !!a.spec?.nodeName;
  const boundB = !!b.spec?.nodeName;
  if (boundA !== boundB) return boundA ? -1 : 1;
  if (created(a) === created(b)) return (a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1;
  return Date.parse(created(a)) - Date.parse(created(b));
}

/** The pods not yet bound whose node is gone (getUnscheduledPodsWithoutNode): no one else deletes them. */
export function unscheduledPodsWithoutNode(nodes: Node[], byNode: Map<string, Pod[]>): Pod[] {
  const known = new Set(nodes.map((n) => n.metadata?.name));
  return [...byNode]
    .filter(([node]) => !known.has(node))
    .flatMap(([, pods]) => pods.filter((p) => !p.spec?.nodeName));
}

/**
 * The nodes to create pods on when creation is partitioned (GetNodesNeedingPods): all of them,
 * sorted, unless `scaleStrategy.partitionedScaling`; then only `desired − new − partition`, by name.
 */
export function nodesNeedingPods(
  newPods: number,
  desired: number,
  partition: number,
  progressive: boolean,
  nodes: string[],
): string[] {
  const sorted = [...nodes].sort();
  if (!progressive) return sorted;
  const p = Math.max(Math.min(partition, desired), 0);
  const maxCreate = Math.min(Math.max(desired - newPods - p, 0), sorted.length);
  return sorted.slice(0, maxCreate);
}

/** The DaemonSet's partition as a number of nodes (of `desired`, rounded down); 0 when unset or not a number. */
export function partitionOf(ds: DaemonSet, desired: number): number {
  const partition = ds.spec?.updateStrategy?.rollingUpdate?.partition;
  if (partition === undefined || partition === null) return 0;
  try {
    return intPercentValue(partition, desired, false);
  } catch {
    return 0;
  }
}

/** Whether the rolling update surges (maxSurge above 0 of one node: allowSurge). */
export function allowSurge(ds: DaemonSet): boolean {
  return surgeCount(ds, 1) > 0;
}

/** maxSurge of `nodes` (rounded up); 0 when not a rolling update, unset, or invalid. */
export function surgeCount(ds: DaemonSet, nodes: number): number {
  return rollingCount(ds, 'maxSurge', nodes);
}

/** maxUnavailable of `nodes` (rounded up); 0 when not a rolling update, unset, or invalid. */
export function unavailableCount(ds: DaemonSet, nodes: number): number {
  return rollingCount(ds, 'maxUnavailable', nodes);
}

/** burstReplicas (default 250) of the desired number scheduled, rounded down. */
export function burstReplicas(ds: DaemonSet): number {
  try {
    return intPercentValue(ds.spec?.burstReplicas ?? 250, ds.status?.desiredNumberScheduled ?? 0, false);
  } catch {
    return 0;
  }
}

/** Whether the rolling update is paused. */
export const isPaused = (ds: DaemonSet): boolean => ds.spec?.updateStrategy?.rollingUpdate?.paused === true;
