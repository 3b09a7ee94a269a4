import { rollingCount } from '@kruise/kube-compat/daemon-rolling';
import type { KubeObject } from '../../registry/types.ts';
import { isPodAvailable, isTerminating } from '../workloads/pod-state.ts';
import { type NodePlan, placementOn } from './manage.ts';
import { isPodUpdated } from './pods.ts';

/** The updated and the old pod on a node, terminating ones left out; undefined when there are several of either. */
function updatedPodsOnNode(
  pods: KubeObject[] | undefined,
  hash: string,
): { newPod?: KubeObject; oldPod?: KubeObject } | undefined {
  let newPod: KubeObject | undefined;
  let oldPod: KubeObject | undefined;
  for (const pod of pods ?? []) {
    if (isTerminating(pod)) continue;
    if (isPodUpdated(pod, hash)) {
      if (newPod) return undefined;
      newPod = pod;
    } else {
      if (oldPod) return undefined;
      oldPod = pod;
    }
  }
  return { newPod, oldPod };
}

/**
 * The rolling update (rollingUpdate of Kubernetes 1.33): without surge, old pods are deleted while
 * fewer than maxUnavailable nodes are unavailable (an old pod that is not available is replaced at
 * once); with surge, new pods are created beside old ones up to maxSurge and an old pod is deleted
 * once its node's new pod is available. Both 0 counts as maxUnavailable 1.
 */
export function rollingUpdatePlan(
  nodes: KubeObject[],
  byNode: Map<string, KubeObject[]>,
  ds: KubeObject,
  hash: string,
): NodePlan {
  const plan: NodePlan = { create: [], delete: [] };
  const minReady: number = ds.spec?.minReadySeconds ?? 0;
  const candidates = new Map(byNode);
  let desired = 0;
  for (const node of nodes) {
    if (!placementOn(node, ds).shouldRun) continue;
    desired++;
    if (!candidates.has(node.metadata?.name)) candidates.set(node.metadata?.name, []);
  }
  let maxUnavailable = rollingCount(ds, 'maxUnavailable', desired);
  const maxSurge = rollingCount(ds, 'maxSurge', desired);
  if (desired > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
  const entries = [...candidates].sort(([a], [b]) => a.localeCompare(b));

  if (maxSurge === 0) {
    let unavailable = 0;
    const replace: KubeObject[] = [];
    const pick: KubeObject[] = [];
    for (const [, pods] of entries) {
      const found = updatedPodsOnNode(pods, hash);
      if (!found) {
        unavailable++;
        continue;
      }
      const { newPod, oldPod } = found;
      if (!oldPod) {
        if (!newPod || !isPodAvailable(newPod, minReady)) unavailable++;
      } else if (newPod) unavailable++;
      else if (!isPodAvailable(oldPod, minReady)) replace.push(oldPod);
      else if (unavailable < maxUnavailable) pick.push(oldPod);
    }
    const room = Math.min(Math.max(maxUnavailable - unavailable, 0), pick.length);
    plan.delete.push(...replace, ...pick.slice(0, room));
    return plan;
  }

  let surging = 0;
  const allowed: string[] = [];
  const pick: string[] = [];
  for (const [node, pods] of entries) {
    const found = updatedPodsOnNode(pods, hash);
    if (!found) {
      surging++;
      continue;
    }
    const { newPod, oldPod } = found;
    if (!oldPod) continue;
    if (!newPod) {
      if (!isPodAvailable(oldPod, minReady)) allowed.push(node);
      else if (surging < maxSurge) pick.push(node);
      continue;
    }
    if (!isPodAvailable(newPod, minReady)) {
      surging++;
      continue;
    }
    plan.delete.push(oldPod);
  }
  const room = Math.min(Math.max(maxSurge - surging, 0), pick.length);
  plan.create.push(...allowed, ...pick.slice(0, room));
  return plan;
}
