import { KRUISE_POD_READY_CONDITION } from '@kruise/api';
import { kubeTime } from '@kruise/kube-compat';
import {
  type ControllerBuilder,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type Manager,
  type Request,
  Resources,
  requestFor,
  retryOnConflict,
} from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { trimmedPods } from '../../informers.ts';
import { mutableStatus, podCondition } from '../../workload/pod-state.ts';
import { hasReadinessGate } from '../../workload/podreadiness/conditions.ts';
import type { AddOptions } from '../add-options.ts';

/** Upstream's worker count of the pod-readiness controller. */
const WORKERS = 3;

/** Whether the pod has the KruisePodReady readiness gate but no such condition yet. */
const waitsForCondition = (pod: Pod) =>
  !pod.metadata?.deletionTimestamp &&
  hasReadinessGate(pod, KRUISE_POD_READY_CONDITION) &&
  podCondition(pod, KRUISE_POD_READY_CONDITION) === undefined;

/**
 * Adds upstream's pod-readiness controller: a pod with the `KruisePodReady` readiness gate (the
 * pod webhook adds it to pods of Kruise workloads) and no such condition gets it True, so kubelet
 * can report the pod Ready; lifecycle hooks and ContainerRecreateRequests turn it False while
 * they hold the pod.
 */
export function add(manager: Manager, _options: AddOptions): ControllerBuilder {
  const client = manager.client;
  const waiting = (p: Pod) => (waitsForCondition(p) ? requestFor(p) : undefined);
  return manager
    .newController({
      name: 'pod-readiness',
      workers: WORKERS,
      reconcile: (_ctx, req) => reconcile(client, req),
    })
    .watches(trimmedPods(manager), { add: waiting, update: (_o, p) => waiting(p) });
}

/** Adds `KruisePodReady: True` to the pod when it still has the gate and no condition (read fresh). */
async function reconcile(client: KubeClient, req: Request): Promise<void> {
  await retryOnConflict(async () => {
    let pod: Pod;
    try {
      pod = (await client.get(Resources.Pod, req.namespace, req.name)) as unknown as Pod;
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (!waitsForCondition(pod)) return;
    const status = mutableStatus(pod);
    status.conditions = [
      ...(status.conditions ?? []),
      { type: KRUISE_POD_READY_CONDITION, status: 'True', lastTransitionTime: kubeTime() },
    ];
    await client.updateStatus(Resources.Pod, pod as unknown as KubeObject);
  });
}
