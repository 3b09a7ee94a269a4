import { nodeShouldRunDaemonPod } from '@kruise/kube-compat/daemon-placement';
import { rollingCount } from '@kruise/kube-compat/daemon-rolling';
import type { KubeObject } from '../../registry/types.ts';
import { isPodAvailable, isPodReady, isTerminating } from '../workloads/pod-state.ts';
import { byCreationAndPhase, isPodUpdated } from './pods.ts';

/** What a pass does: the nodes to create a pod on and the pods to delete. */
export interface NodePlan {
  create: string[];
  delete: KubeObject[];
}

/** Whether the DaemonSet's template lets its pod run on the node (kube-compat's placement). */
export const placementOn = (node: KubeObject, ds: KubeObject) =>
  nodeShouldRunDaemonPod(node, ds.spec?.template?.spec ?? {});

/** Whether the rolling update surges (AllowsSurge). */
export const allowsSurge = (ds: KubeObject): boolean => rollingCount(ds, 'maxSurge', 1) > 0;

/**
 * Which pods a node should have (podsShouldBeOnNode): a pod where one should run and none is; the
 * finished ones deleted; without surge all but the oldest running pod deleted; with surge an old and
 * a new pod kept only while the new one is not yet available; every pod deleted where none should
 * run.
 */
export function podsShouldBeOnNode(
  node: KubeObject,
  pods: KubeObject[] | undefined,
  ds: KubeObject,
  hash: string,
  plan: NodePlan,
): void {
  const { shouldRun, shouldContinueRunning } = placementOn(node, ds);
  const name = node.metadata?.name;
  if (shouldRun && !pods?.length) {
    plan.create.push(name);
    return;
  }
  if (!pods?.length) return;
  if (!shouldContinueRunning) {
    for (const pod of pods) if (!isTerminating(pod)) plan.delete.push(pod);
    return;
  }
  const running: KubeObject[] = [];
  for (const pod of pods) {
    if (isTerminating(pod)) continue;
    if (pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded') plan.delete.push(pod);
    else running.push(pod);
  }
  running.sort(byCreationAndPhase);
  if (!allowsSurge(ds)) {
    plan.delete.push(...running.slice(1));
    return;
  }
  if (running.length <= 1) {
    if (running.length === 0 && shouldRun) plan.create.push(name);
    return;
  }
  let oldestNew: KubeObject | undefined;
  let oldestOld: KubeObject | undefined;
  for (const pod of running) {
    if (isPodUpdated(pod, hash) && !oldestNew) oldestNew = pod;
    else if (!isPodUpdated(pod, hash) && !oldestOld) oldestOld = pod;
    else plan.delete.push(pod);
  }
  if (oldestNew && oldestOld) {
    if (!isPodReady(oldestOld) || isPodAvailable(oldestNew, ds.spec?.minReadySeconds ?? 0))
      plan.delete.push(oldestOld);
  }
}

/**
 * The manage pass over every node (manage): what each node should have, plus the unbound pods whose
 * node is gone.
 */
export function managePlan(
  nodes: KubeObject[],
  byNode: Map<string, KubeObject[]>,
  ds: KubeObject,
  hash: string,
): NodePlan {
  const plan: NodePlan = { create: [], delete: [] };
  for (const node of nodes) podsShouldBeOnNode(node, byNode.get(node.metadata?.name), ds, hash, plan);
  const known = new Set(nodes.map((n) => n.metadata?.name));
  for (const [node, pods] of byNode)
    if (!known.has(node))
      for (const pod of pods) if (!pod.spec?.nodeName && !isTerminating(pod)) plan.delete.push(pod);
  return plan;
}
